// The scopes of a module or script: where each name is declared, which names a function reads from outside itself
// that the code declares (its closure's variables; a name the code does not declare is a global, which the library
// never reads from a closure), and which of those can never change (./constant-names.ts). Enough of ECMAScript's
// scoping for these questions: var hoisting to the function, let/const/class to the block, function declarations,
// parameters, catch parameters, imports, the name of a function or class expression; TypeScript's type positions are
// not code. The bundler plugin (src/plugin/) and the library's reading of closures in Node use it.

import type * as A from "acorn";

type Node = A.Node;

/** How a name is declared. */
export type DeclarationKind = "const" | "let" | "var" | "function" | "class" | "param" | "import" | "other";

/** Where a name is declared. */
export interface Declaration {
  readonly name: string;
  /** The node that declares it: a function declaration, a variable declarator, an import specifier, ... */
  readonly node: Node;
  readonly scope: Scope;
  readonly kind: DeclarationKind;
  /** Declared more than once (`var x` twice, a function declared again): each declaration assigns it. */
  again?: boolean;
}

export class Scope {
  readonly names = new Map<string, Declaration>();

  constructor(
    readonly parent: Scope | undefined,
    /** The node whose scope this is (a function's own: its parameters and body). */
    readonly owner: Node,
  ) {}

  declare(name: string, node: Node, kind: DeclarationKind = "other"): void {
    const known = this.names.get(name);
    if (known) known.again = true;
    else this.names.set(name, { name, node, scope: this, kind });
  }

  lookup(name: string): Declaration | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }

  /** Whether `this` is `outer` or inside it. */
  within(outer: Scope): boolean {
    return this === outer || (this.parent?.within(outer) ?? false);
  }
}

/** A reading (or assignment) of a name: the identifier and the scope it is read in. */
export interface Reference {
  readonly node: A.Identifier;
  readonly scope: Scope;
  /** An assignment to it (`x = `, `x += `, `x++`, `for (x of ...)`, `[x] = ...`). */
  readonly write?: boolean;
}

const isFunction = (n: Node): n is A.Function =>
  n.type === "FunctionDeclaration" || n.type === "FunctionExpression" || n.type === "ArrowFunctionExpression";

/** Keys of TypeScript's nodes that hold types. */
const TYPE_KEYS = new Set(["typeAnnotation", "returnType", "typeParameters", "typeArguments", "superTypeParameters"]);
/** TypeScript's expressions that wrap a value (walked for them); any other TS node is a type or declares one. */
const TS_VALUE = new Set(["TSAsExpression", "TSNonNullExpression", "TSSatisfiesExpression", "TSTypeAssertion"]);

const isNode = (x: unknown): x is Node =>
  x !== null && typeof x === "object" && typeof (x as { type?: unknown }).type === "string";

/** The nodes directly inside a node that are code (not types). */
export function children(node: Node): Node[] {
  const out: Node[] = [];
  for (const [key, v] of Object.entries(node) as [string, unknown][]) {
    if (TYPE_KEYS.has(key) || key === "loc") continue;
    if (Array.isArray(v)) {
      for (const x of v as unknown[]) if (isNode(x)) out.push(x);
    } else if (isNode(v)) out.push(v);
  }
  return out;
}

/** The names a binding pattern declares. */
export function patternNames(p: Node | null | undefined, out: A.Identifier[] = []): A.Identifier[] {
  if (!p) return out;
  switch (p.type) {
    case "Identifier":
      out.push(p as A.Identifier);
      break;
    case "AssignmentPattern":
      patternNames((p as A.AssignmentPattern).left, out);
      break;
    case "RestElement":
      patternNames((p as A.RestElement).argument, out);
      break;
    case "ArrayPattern":
      for (const e of (p as A.ArrayPattern).elements) patternNames(e, out);
      break;
    case "ObjectPattern":
      for (const q of (p as A.ObjectPattern).properties) patternNames(q.type === "Property" ? q.value : q, out);
      break;
    case "TSParameterProperty":
      patternNames((p as unknown as { parameter: Node }).parameter, out);
      break;
  }
  return out;
}

/** The module's scopes: the scope each function (and the module) makes, and every reading of a name. */
export interface Scopes {
  readonly module: Scope;
  readonly ofFunction: Map<Node, Scope>;
  readonly references: Reference[];
}

export function analyse(program: A.Program): Scopes {
  const module = new Scope(undefined, program);
  const ofFunction = new Map<Node, Scope>();
  const references: Reference[] = [];

  /** Declarations a statement list makes in `scope`: lexical ones of the list, and (in a function) hoisted vars. */
  const hoist = (body: readonly Node[], scope: Scope, functionScope: boolean): void => {
    for (const s0 of body) {
      const s = s0.type === "ExportNamedDeclaration" || s0.type === "ExportDefaultDeclaration" ? declarationOf(s0) : s0;
      if (!s) continue;
      if (s.type === "FunctionDeclaration" || s.type === "ClassDeclaration" || s.type === "TSEnumDeclaration") {
        const id = (s as { id?: A.Identifier | null }).id;
        if (id) scope.declare(id.name, s, s.type === "FunctionDeclaration" ? "function" : "class");
      } else if (s.type === "VariableDeclaration" && (s as A.VariableDeclaration).kind !== "var") {
        const kind = (s as A.VariableDeclaration).kind === "const" ? "const" : "let";
        for (const d of (s as A.VariableDeclaration).declarations)
          for (const id of patternNames(d.id)) scope.declare(id.name, d, kind);
      } else if (s.type === "ImportDeclaration" && (s as { importKind?: string }).importKind !== "type")
        for (const spec of (s as A.ImportDeclaration).specifiers)
          if ((spec as { importKind?: string }).importKind !== "type") scope.declare(spec.local.name, spec, "import");
    }
    if (functionScope) for (const s of body) hoistVars(s, scope);
  };

  /** `var` declarations anywhere in a function's statements (not in nested functions), declared in its scope. */
  const hoistVars = (node: Node, scope: Scope): void => {
    const work: Node[] = [node];
    while (work.length > 0) {
      const n = work.pop()!;
      if (isFunction(n) || n.type === "ClassDeclaration" || n.type === "ClassExpression") continue;
      if (n.type === "VariableDeclaration" && (n as A.VariableDeclaration).kind === "var")
        for (const d of (n as A.VariableDeclaration).declarations)
          for (const id of patternNames(d.id)) scope.declare(id.name, d, "var");
      work.push(...children(n).filter((c) => !isExpression(c)));
    }
  };

  const walkPattern = (p: Node | null | undefined, scope: Scope, assigns = false): void => {
    // A pattern's defaults and computed keys are read; its names are declared (elsewhere), or assigned.
    if (!p) return;
    if (p.type === "Identifier") {
      if (assigns) references.push({ node: p as A.Identifier, scope, write: true });
      return;
    }
    if (p.type === "AssignmentPattern") {
      walkPattern((p as A.AssignmentPattern).left, scope, assigns);
      walk((p as A.AssignmentPattern).right, scope);
    } else if (p.type === "ArrayPattern") (p as A.ArrayPattern).elements.forEach((e) => walkPattern(e, scope, assigns));
    else if (p.type === "ObjectPattern")
      for (const q of (p as A.ObjectPattern).properties) {
        if (q.type === "RestElement") walkPattern(q.argument, scope, assigns);
        else {
          if (q.computed) walk(q.key, scope);
          walkPattern(q.value, scope, assigns);
        }
      }
    else if (p.type === "RestElement") walkPattern((p as A.RestElement).argument, scope, assigns);
    else if (p.type === "TSParameterProperty")
      walkPattern((p as unknown as { parameter: Node }).parameter, scope, assigns);
    else walk(p, scope); // an assignment's target: a member expression
  };

  const walkFunction = (f: A.Function, outer: Scope): void => {
    const scope = new Scope(outer, f);
    ofFunction.set(f, scope);
    if (f.type === "FunctionExpression" && f.id) scope.declare(f.id.name, f, "function");
    for (const p of f.params) for (const id of patternNames(p)) scope.declare(id.name, p, "param");
    scope.declare("arguments", f);
    for (const p of f.params) walkPattern(p, scope);
    if (f.body.type === "BlockStatement") {
      hoist(f.body.body, scope, true);
      for (const s of f.body.body) walk(s, scope);
    } else walk(f.body, scope);
  };

  const walk = (node: Node | null | undefined, scope: Scope): void => {
    if (!node) return;
    if (node.type.startsWith("TS") && !TS_VALUE.has(node.type)) {
      if (node.type === "TSEnumDeclaration")
        for (const c of children(node)) if (c.type !== "Identifier") walk(c, scope);
      return;
    }
    switch (node.type) {
      case "Identifier":
        references.push({ node: node as A.Identifier, scope });
        return;
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression":
        return walkFunction(node as A.Function, scope);
      case "BlockStatement":
      case "StaticBlock": {
        const inner = new Scope(scope, node);
        const body = (node as A.BlockStatement).body;
        hoist(body, inner, false);
        for (const s of body) walk(s, inner);
        return;
      }
      case "ForStatement":
      case "ForInStatement":
      case "ForOfStatement": {
        const inner = new Scope(scope, node);
        const head = node.type === "ForStatement" ? (node as A.ForStatement).init : (node as A.ForInStatement).left;
        if (head?.type === "VariableDeclaration" && head.kind !== "var")
          for (const d of head.declarations)
            for (const id of patternNames(d.id)) inner.declare(id.name, d, head.kind === "const" ? "const" : "let");
        // `for (x of xs)`: the loop assigns x.
        if (node.type !== "ForStatement" && head && head.type !== "VariableDeclaration") walkPattern(head, inner, true);
        for (const c of children(node)) if (c !== head || head.type === "VariableDeclaration") walk(c, inner);
        return;
      }
      case "CatchClause": {
        const inner = new Scope(scope, node);
        const param = (node as A.CatchClause).param;
        for (const id of patternNames(param)) inner.declare(id.name, node);
        walkPattern(param, inner);
        walk((node as A.CatchClause).body, inner);
        return;
      }
      case "SwitchStatement": {
        walk((node as A.SwitchStatement).discriminant, scope);
        const inner = new Scope(scope, node);
        const cases = (node as A.SwitchStatement).cases;
        hoist(
          cases.flatMap((c) => c.consequent),
          inner,
          false,
        );
        for (const c of cases) for (const x of children(c)) walk(x, inner);
        return;
      }
      case "ClassDeclaration":
      case "ClassExpression": {
        const c = node as A.Class;
        const inner = new Scope(scope, node);
        if (c.id) inner.declare(c.id.name, node);
        walk(c.superClass, scope);
        for (const m of c.body.body) {
          if ((m.type === "MethodDefinition" || m.type === "PropertyDefinition") && m.computed) walk(m.key, inner);
          walk(m.type === "MethodDefinition" || m.type === "PropertyDefinition" ? m.value : m, inner);
        }
        return;
      }
      case "VariableDeclaration":
        for (const d of (node as A.VariableDeclaration).declarations) {
          walkPattern(d.id, scope);
          walk(d.init, scope);
        }
        return;
      case "MemberExpression": {
        const m = node as A.MemberExpression;
        walk(m.object, scope);
        if (m.computed) walk(m.property, scope);
        return;
      }
      case "Property": {
        const p = node as A.Property;
        if (p.computed) walk(p.key, scope);
        walk(p.value, scope);
        return;
      }
      case "AssignmentExpression":
        walkPattern((node as A.AssignmentExpression).left, scope, true);
        walk((node as A.AssignmentExpression).right, scope);
        return;
      case "UpdateExpression":
        walkPattern((node as A.UpdateExpression).argument, scope, true);
        return;
      case "LabeledStatement":
        walk((node as A.LabeledStatement).body, scope);
        return;
      case "BreakStatement":
      case "ContinueStatement":
      case "MetaProperty":
      case "ImportDeclaration":
      case "ExportAllDeclaration":
        return;
      case "ExportNamedDeclaration":
      case "ExportDefaultDeclaration":
        walk(declarationOf(node), scope);
        return;
      default:
        for (const c of children(node)) walk(c, scope);
    }
  };

  hoist(program.body, module, true);
  for (const s of program.body) walk(s, module);
  return { module, ofFunction, references };
}

/** What an export statement declares or exports (undefined for `export { a, b }`). */
export function declarationOf(node: Node): Node | undefined {
  const d = (node as { declaration?: Node | null }).declaration;
  return d ?? undefined;
}

const EXPRESSIONS = /Expression$|^Literal$|^Identifier$|^TemplateLiteral$/;
const isExpression = (n: Node): boolean => EXPRESSIONS.test(n.type);

/**
 * The names `f` reads that are declared outside it in the module, in order of first reading (`arguments` and names
 * of a function expression itself are its own).
 */
export function freeNames(f: A.Function, scopes: Scopes): string[] {
  const own = scopes.ofFunction.get(f);
  if (!own) return [];
  const names = new Set<string>();
  for (const r of scopes.references) {
    if (r.node.start < f.start || r.node.end > f.end) continue;
    const d = r.scope.lookup(r.node.name);
    if (d && !d.scope.within(own)) names.add(r.node.name);
  }
  return [...names];
}
