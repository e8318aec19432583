/**
 * Reading and rewriting parsed Handlebars templates: what a template may not do, which
 * variables it reads, and the rewrite that routes every `{{X}}` through a context escaper.
 */
type Node = hbs.AST.Node;
type Program = hbs.AST.Program;
type Path = hbs.AST.PathExpression;
type Call = hbs.AST.MustacheStatement | hbs.AST.BlockStatement | hbs.AST.SubExpression;

export interface TemplateIssue {
  message: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface VariableReference {
  name: string;
  line: number;
  column: number;
}

export function position(node: Node): { line: number; column: number } {
  return { line: node.loc?.start.line ?? 1, column: (node.loc?.start.column ?? 0) + 1 };
}

const LITERALS = new Set(['StringLiteral', 'NumberLiteral', 'BooleanLiteral', 'UndefinedLiteral', 'NullLiteral']);

/** Handlebars reads `{{"a b"}}` as a lookup of the key "a b"; do the same before looking at the path. */
function asPath(node: Node): Path | undefined {
  if (node.type === 'PathExpression') return node as Path;
  if (!LITERALS.has(node.type)) return undefined;
  const literal = node as hbs.AST.StringLiteral;
  const original = String(literal.original);
  return { type: 'PathExpression', data: false, depth: 0, parts: [original], original, loc: node.loc };
}

function isSimpleName(path: Path): boolean {
  return !path.data && path.depth === 0 && path.parts.length === 1 && !/^(\.|this\b)/.test(path.original);
}

function hasArguments(call: Call): boolean {
  return call.params.length > 0 || (call.hash?.pairs.length ?? 0) > 0;
}

/** Whether a call site calls a helper (rather than reading a value), as Handlebars decides it. */
function callsHelper(call: Call, helpers: ReadonlySet<string>): boolean {
  if (call.type === 'SubExpression' || hasArguments(call)) return true;
  const path = asPath(call.path);
  return path !== undefined && isSimpleName(path) && helpers.has(path.original);
}

interface Visitor {
  call?(node: Call, scoped: boolean): void;
  value?(node: Node, scoped: boolean): void;
  other?(node: Node): void;
}

// `each` and `with` change what a bare name means inside their block; other blocks keep the root.
const SCOPING_BLOCKS = new Set(['each', 'with']);

function walkExpression(node: Node, scoped: boolean, visitor: Visitor): void {
  if (node.type === 'SubExpression') return walkCall(node as hbs.AST.SubExpression, scoped, visitor);
  visitor.value?.(node, scoped);
}

function walkCall(call: Call, scoped: boolean, visitor: Visitor): void {
  visitor.call?.(call, scoped);
  for (const param of call.params) walkExpression(param, scoped, visitor);
  for (const pair of call.hash?.pairs ?? []) walkExpression(pair.value, scoped, visitor);
}

function walk(program: Program | undefined, scoped: boolean, visitor: Visitor): void {
  for (const statement of program?.body ?? []) {
    if (statement.type === 'MustacheStatement') {
      walkCall(statement as hbs.AST.MustacheStatement, scoped, visitor);
    } else if (statement.type === 'BlockStatement') {
      const block = statement as hbs.AST.BlockStatement;
      walkCall(block, scoped, visitor);
      walk(block.program, scoped || SCOPING_BLOCKS.has(block.path.original), visitor);
      walk(block.inverse, scoped, visitor);
    } else {
      visitor.other?.(statement);
    }
  }
}

// The fewest arguments each helper needs to mean anything; fewer is a mistake worth a 400.
const MIN_ARGUMENTS: Record<string, number> = {
  eq: 2,
  contains: 2,
  gt: 2,
  gte: 2,
  lt: 2,
  lte: 2,
  startsWith: 2,
  tagValue: 2,
  default: 2,
  lookup: 2,
  replace: 3,
  and: 1,
  or: 1,
  not: 1,
  uppercase: 1,
  lowercase: 1,
  split: 1,
  if: 1,
  unless: 1,
  each: 1,
  with: 1,
};
const EXACTLY_ONE_AS_BLOCK = new Set(['if', 'unless', 'with']);

const FORBIDDEN: Record<string, string> = {
  PartialStatement: 'partials are not supported',
  PartialBlockStatement: 'partials are not supported',
  DecoratorBlock: 'decorators are not supported',
  Decorator: 'decorators are not supported',
};

/** The first thing in a parsed template that would fail or misbehave at render time. */
export function findIssue(program: Program, helpers: ReadonlySet<string>): TemplateIssue | undefined {
  let issue: TemplateIssue | undefined;
  const report = (node: Node, message: string) => {
    issue ??= { message, ...position(node) };
  };
  walk(program, false, {
    other(node) {
      const message = FORBIDDEN[node.type];
      if (message) report(node, message);
    },
    call(node) {
      if (!callsHelper(node, helpers)) return;
      const path = asPath(node.path);
      const name = path?.original ?? '';
      if (!path || !isSimpleName(path) || !helpers.has(name)) return report(node, `unknown helper "${name}"`);
      const min = MIN_ARGUMENTS[name] ?? 0;
      if (node.params.length < min) report(node, `${name} needs at least ${min} argument${min === 1 ? '' : 's'}`);
      else if (node.type === 'BlockStatement' && EXACTLY_ONE_AS_BLOCK.has(name) && node.params.length !== 1) {
        report(node, `#${name} takes exactly one argument`);
      }
    },
  });
  return issue;
}

function referenceOf(path: Path, scoped: boolean): string | undefined {
  if (path.data) return path.parts[0] === 'root' ? path.parts[1] : undefined;
  if (scoped || path.depth > 0) return undefined;
  return path.parts[0];
}

/** The top-level variables a template reads, in order. Names read inside `each`/`with` are not known statically. */
export function collectVariables(program: Program, helpers: ReadonlySet<string>): VariableReference[] {
  const found: VariableReference[] = [];
  const add = (node: Node, scoped: boolean, at: Node = node) => {
    const path = asPath(node);
    const name = path && referenceOf(path, scoped);
    if (name !== undefined) found.push({ name, ...position(at) });
  };
  walk(program, false, {
    call(node, scoped) {
      if (!callsHelper(node, helpers)) add(node.path, scoped, node);
    },
    value(node, scoped) {
      if (node.type === 'PathExpression') add(node, scoped);
    },
  });
  return found;
}

function helperPath(name: string, loc: hbs.AST.SourceLocation): Path {
  return { type: 'PathExpression', data: false, depth: 0, parts: [name], original: name, loc };
}

/**
 * Rewrites `{{X}}` into `{{{escapeHelper X}}}` (and, when rawHelper is given, `{{{X}}}` into
 * `{{{rawHelper X}}}`), so that each context applies its own encoding through a helper instead
 * of Handlebars' process-wide HTML escaper. Only nodes built here are added, never user text.
 */
export function routeThroughHelpers(
  program: Program,
  helpers: ReadonlySet<string>,
  escapeHelper: string,
  rawHelper?: string,
): void {
  const rewrite = (statements: hbs.AST.Statement[]) => {
    for (const statement of statements) {
      if (statement.type === 'BlockStatement') {
        const block = statement as hbs.AST.BlockStatement;
        rewrite(block.program?.body ?? []);
        rewrite(block.inverse?.body ?? []);
        continue;
      }
      if (statement.type !== 'MustacheStatement') continue;
      const mustache = statement as hbs.AST.MustacheStatement;
      const helper = mustache.escaped ? escapeHelper : rawHelper;
      const path = asPath(mustache.path);
      if (helper === undefined || path === undefined) continue;
      const callee = { ...mustache, path };
      const inner: Node = callsHelper(callee, helpers)
        ? ({
            type: 'SubExpression',
            path,
            params: mustache.params,
            hash: mustache.hash,
            loc: mustache.loc,
          } as hbs.AST.SubExpression)
        : path;
      mustache.path = helperPath(helper, mustache.loc);
      mustache.params = [inner];
      (mustache as { hash?: hbs.AST.Hash }).hash = undefined;
      mustache.escaped = false;
    }
  };
  rewrite(program.body);
}

/** The first non-blank character of the template's literal text, in document order (blocks included). */
export function firstLiteralCharacter(program: Program | undefined): string | undefined {
  for (const statement of program?.body ?? []) {
    if (statement.type === 'ContentStatement') {
      const text = (statement as hbs.AST.ContentStatement).value.trimStart();
      if (text !== '') return text[0];
    } else if (statement.type === 'BlockStatement') {
      const block = statement as hbs.AST.BlockStatement;
      const found = firstLiteralCharacter(block.program) ?? firstLiteralCharacter(block.inverse);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
