export { createCheckLookup, type CheckLookup, type CheckIdentity } from './check-lookup.ts';
export { classifyResults, parseJson, ParseFailure, type Classified, type Rejection } from './classify.ts';
export { createBusSink, createDirectSink, toMessages, type ResultSink } from './sink.ts';
export { createIngestHandler, type IngestDeps } from './ingest-handler.ts';
export { parseCheckResultFast, takesFastPath } from './fast-check-result.ts';
