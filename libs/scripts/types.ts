import type { Logger } from '#core';
import type { Sandbox } from '#sandbox';
import type { ScriptArtifact } from './artifacts.ts';

export interface ScriptFile {
  path: string;
  content: string;
}

export interface ScriptRunRequest {
  /** A BROWSER check with a script runs as PLAYWRIGHT. */
  kind: 'MULTI_STEP' | 'PLAYWRIGHT';
  /** One of script and files: files is a small test project with an optional playwright.config.{ts,js,mjs,cjs}. */
  script?: string;
  files?: ScriptFile[];
  runtimeName: string;
  /** The check's variables (account, then group), secrets included: the script's whole process.env. */
  env: Record<string, string>;
  /** The run's whole budget (maxResponseTime, at most 240 s). */
  timeoutMs: number;
  allowPrivate: boolean;
  /** PLAYWRIGHT: a full-page screenshot and trace.zip; MULTI_STEP: failing responses' bodies. Default NEVER. */
  artifacts?: 'ALWAYS' | 'ON_FAILURE' | 'NEVER';
  /** ON_FAILURE: a passing test whose page is still open this many ms after the run began keeps its evidence too (the run is degraded). */
  degradedMs?: number;
  signal?: AbortSignal;
}

export interface ScriptStep {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  durationMs: number;
  error?: string;
}

export interface ScriptRequestTimings {
  dns?: number;
  tcp?: number;
  firstByte?: number;
  download?: number;
  total?: number;
}

/** One `request` fixture call. Headers and bodies are capped at 16 KiB each. */
export interface ScriptRequest {
  method: string;
  url: string;
  status?: number;
  statusText?: string;
  durationMs?: number;
  timings?: ScriptRequestTimings;
  requestHeaders?: Record<string, string>;
  requestBody?: string;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

export interface ScriptPage {
  index: number;
  url: string;
  TTFB?: number;
  FCP?: number;
  LCP?: number;
  CLS?: number;
  TBT?: number;
  consoleErrors: number;
  networkErrors: number;
  userScriptErrors: number;
  documentErrors: number;
}

export interface ScriptRunOutcome {
  passed: boolean;
  durationMs: number;
  error?: string;
  steps: ScriptStep[];
  /** The script's console output, at most 64 KiB. */
  logs: string;
  requests: ScriptRequest[];
  pages: ScriptPage[];
  failedExpectations?: { message: string; step?: string }[];
  /** What the run handed out to keep (checked: capped, regular files, right format); unscrubbed. */
  artifacts?: ScriptArtifact[];
}

export interface ScriptRunner {
  ready(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Never throws for anything the script, its target, the sandbox or the runtime does. */
  run(request: ScriptRunRequest): Promise<ScriptRunOutcome>;
  close(): Promise<void>;
}

export interface ScriptRunnerOptions {
  sandbox: Sandbox;
  /** Where installed runtimes live (each in <root>/<name>). */
  runtimesRoot: string;
  /** Chromium for PLAYWRIGHT runs; default /usr/bin/chromium. */
  chromiumPath?: string;
  logger: Logger;
}
