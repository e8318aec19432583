/**
 * The Playwright Test reporter of a script run. It appends one JSON line per event to the file
 * named in its options, synchronously, so whatever happened before a hard kill (timeout, memory)
 * is on disk and the runner can name the step that was running. The runner parses and validates.
 */
import { appendFileSync } from 'node:fs';

const LOG_CAP = 64 * 1024;
const ATTACHMENT_CAP = 4 * 1024 * 1024;

interface Step {
  title: string;
  category: string;
  parent?: Step;
  duration: number;
  error?: { message?: string; value?: string };
}
interface TestCase {
  title: string;
  titlePath(): string[];
  parent: { project?(): { name: string } | undefined };
}
interface TestResult {
  status: string;
  duration: number;
  errors: { message?: string; value?: string }[];
  attachments: { name: string; body?: Buffer }[];
}

class VigilReporter {
  private readonly file: string;
  private logged = 0;
  private readonly stepNames = new Map<Step, string>();
  private readonly testSteps = new Set<TestCase>();

  constructor(options: { outputFile: string }) {
    this.file = options.outputFile;
  }

  private emit(event: Record<string, unknown>): void {
    appendFileSync(this.file, JSON.stringify(event) + '\n');
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(): void {
    this.emit({ type: 'begin' });
  }

  private stepName(step: Step): string | undefined {
    if (step.category !== 'test.step') return undefined;
    const known = this.stepNames.get(step);
    if (known) return known;
    let parent = step.parent;
    while (parent && parent.category !== 'test.step') parent = parent.parent;
    const outer = parent ? this.stepName(parent) : undefined;
    const name = outer ? `${outer} › ${step.title}` : step.title;
    this.stepNames.set(step, name);
    return name;
  }

  private testName(test: TestCase): string {
    // [root, project, file, ...describes, title]: the describes and the title name the test.
    return test.titlePath().slice(3).join(' › ') || test.title;
  }

  onTestBegin(test: TestCase): void {
    this.emit({ type: 'testBegin', test: this.testName(test) });
  }

  onStepBegin(test: TestCase, _result: TestResult, step: Step): void {
    const name = this.stepName(step);
    if (name === undefined) return;
    this.testSteps.add(test);
    this.emit({ type: 'stepBegin', test: this.testName(test), step: name });
  }

  onStepEnd(test: TestCase, _result: TestResult, step: Step): void {
    const name = this.stepName(step);
    if (name === undefined) return;
    this.emit({
      type: 'stepEnd',
      test: this.testName(test),
      step: name,
      durationMs: step.duration,
      ...(step.error ? { error: step.error.message ?? step.error.value ?? 'failed' } : {}),
    });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const attachments: Record<string, unknown[]> = {};
    let size = 0;
    for (const attachment of result.attachments) {
      if (!attachment.name.startsWith('vigil-') || !attachment.body) continue;
      size += attachment.body.length;
      if (size > ATTACHMENT_CAP) break;
      try {
        (attachments[attachment.name] ??= []).push(...(JSON.parse(attachment.body.toString('utf8')) as unknown[]));
      } catch {
        // Not ours after all: a script may attach anything under any name.
      }
    }
    this.emit({
      type: 'testEnd',
      test: this.testName(test),
      status: result.status,
      durationMs: result.duration,
      hadSteps: this.testSteps.has(test),
      errors: result.errors.map((error) => error.message ?? error.value ?? 'failed'),
      requests: attachments['vigil-requests'] ?? [],
      pages: attachments['vigil-pages'] ?? [],
    });
  }

  private output(chunk: string | Buffer): void {
    if (this.logged >= LOG_CAP) return;
    const text = chunk.toString();
    const kept = text.slice(0, LOG_CAP - this.logged);
    this.logged += kept.length;
    this.emit({ type: 'log', text: kept });
  }

  onStdOut(chunk: string | Buffer): void {
    this.output(chunk);
  }

  onStdErr(chunk: string | Buffer): void {
    this.output(chunk);
  }

  onError(error: { message?: string; value?: string }): void {
    this.emit({ type: 'error', message: error.message ?? error.value ?? 'error' });
  }

  onEnd(result: { status: string }): void {
    this.emit({ type: 'end', status: result.status });
  }
}

declare const module: { exports: unknown };
module.exports = VigilReporter;
