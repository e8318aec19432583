export { createHttpServer, zodRoutes, type HttpServerOptions } from './server.ts';
export { errorBodySchema, errorBody, errorResponses, type ErrorBody } from './errors.ts';
export { installHealth, type ReadinessCheck } from './health.ts';
export { strictInput } from './strict-input.ts';
export { createMetricsRegistry } from './metrics.ts';
export { operationId, type DescribeRoute, type PatchDocument, type RouteDoc } from './openapi.ts';
export { compileWriter, responseSerializerCompiler } from './serializer.ts';
export { differences, random, sample } from './serializer-fuzz.ts';
