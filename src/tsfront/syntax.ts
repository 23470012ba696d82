// The syntax trees the translator reads: ESTree, as acorn parses JavaScript (a function's `toString`) and, with its
// TypeScript plugin, TypeScript modules (whose annotations add a few node types of their own). Here are the node
// types it names, and what it asks of any node: its children, whether it is a function, the expression a wrapper
// that does not change a value holds.

import type * as A from "acorn";

export type Node = A.Node;
export type Expression = A.Expression;
export type Statement = A.Statement;
export type Pattern = A.Pattern;
export type Identifier = A.Identifier;

/** A function of the subset: declared, an expression, an arrow function, or a method's function. */
export type FunctionNode = A.FunctionDeclaration | A.FunctionExpression | A.ArrowFunctionExpression;

/** The TypeScript annotations the translator reads (a declared return type). */
export interface TypeNode extends A.Node {
  readonly elementType?: TypeNode;
  readonly typeName?: A.Node & { name?: string };
  readonly typeArguments?: { readonly params: readonly TypeNode[] };
  readonly typeParameters?: { readonly params: readonly TypeNode[] };
}

/** A function's declared return type (`function f(): number[]`), when it has one. */
export function returnTypeOf(node: FunctionNode): TypeNode | undefined {
  return (node as { returnType?: { typeAnnotation?: TypeNode } }).returnType?.typeAnnotation;
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

export const isFunctionNode = (n: A.Node): n is FunctionNode => FUNCTIONS.has(n.type);

/** Does this node start a scope of its own code (a function or a class), whose statements are not the outer code's? */
export const isFunctionLike = (n: A.Node): boolean =>
  FUNCTIONS.has(n.type) || n.type === "ClassDeclaration" || n.type === "ClassExpression";

/** TypeScript's expressions that only state a type: `x as T`, `x!`, `x satisfies T`, `<T>x`. */
const TYPE_ONLY = new Set(["TSAsExpression", "TSNonNullExpression", "TSSatisfiesExpression", "TSTypeAssertion"]);

/**
 * Strips what does not change a value: TypeScript's type assertions, optional chaining (the subset's values are never
 * null or undefined, so `p?.w` is `p.w`), and the `(0, f)` bundlers write around an imported function they call.
 */
export function bare(e: A.Expression): A.Expression {
  for (;;) {
    if (TYPE_ONLY.has(e.type)) e = (e as unknown as { expression: A.Expression }).expression;
    else if (e.type === "ChainExpression") e = e.expression;
    else if (
      e.type === "SequenceExpression" &&
      e.expressions.length === 2 &&
      e.expressions[0]!.type === "Literal" &&
      typeof e.expressions[0].value === "number"
    )
      e = e.expressions[1]!;
    else return e;
  }
}

/** Keys of nodes that hold types, not code: not children of the code. */
const TYPE_KEYS = new Set(["typeAnnotation", "returnType", "typeParameters", "typeArguments", "loc", "range"]);

const isNode = (x: unknown): x is A.Node =>
  x !== null && typeof x === "object" && typeof (x as { type?: unknown }).type === "string";

/** The children of a node that are code, in source order. */
export function childrenOf(node: A.Node): A.Node[] {
  const out: A.Node[] = [];
  const fields = node as unknown as Record<string, unknown>;
  for (const key in fields) {
    if (TYPE_KEYS.has(key)) continue;
    const v = fields[key];
    if (Array.isArray(v)) {
      for (const x of v) if (isNode(x)) out.push(x);
    } else if (isNode(v)) out.push(v);
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A number literal's value. */
export const numberLiteral = (e: A.Node): number | undefined =>
  e.type === "Literal" && typeof (e as A.Literal).value === "number" ? ((e as A.Literal).value as number) : undefined;

/** A string literal's value (also a template without substitutions). */
export function stringLiteral(e: A.Node): string | undefined {
  if (e.type === "Literal" && typeof (e as A.Literal).value === "string") return (e as A.Literal).value as string;
  if (e.type === "TemplateLiteral" && (e as A.TemplateLiteral).expressions.length === 0)
    return (e as A.TemplateLiteral).quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

/** The name of a property key that is written as a name or a string (`p.w`, `{ w: 1 }`, `{ "w": 1 }`). */
export function keyName(key: A.Node, computed: boolean): string | undefined {
  if (!computed && key.type === "Identifier") return (key as A.Identifier).name;
  const s = stringLiteral(key);
  if (s !== undefined) return s;
  const n = numberLiteral(key);
  return n !== undefined && !computed ? String(n) : undefined;
}

/** The names a function declares anywhere inside it: parameters, variables, functions and classes. */
export function declaredNames(node: FunctionNode): Set<string> {
  const names = new Set<string>();
  const bind = (p: A.Node | null | undefined): void => {
    if (!p) return;
    if (p.type === "Identifier") names.add((p as A.Identifier).name);
    else if (p.type === "AssignmentPattern") bind((p as A.AssignmentPattern).left);
    else if (p.type === "RestElement") bind((p as A.RestElement).argument);
    else if (p.type === "ArrayPattern") (p as A.ArrayPattern).elements.forEach(bind);
    else if (p.type === "ObjectPattern")
      for (const q of (p as A.ObjectPattern).properties) bind(q.type === "Property" ? q.value : q);
    else if (p.type === "TSParameterProperty") bind((p as unknown as { parameter: A.Node }).parameter);
  };
  const work: A.Node[] = [node];
  while (work.length > 0) {
    const n = work.pop()!;
    if (isFunctionNode(n)) {
      n.params.forEach(bind);
      if (n !== node && n.type === "FunctionDeclaration") bind(n.id);
    } else if (n.type === "VariableDeclarator") bind((n as A.VariableDeclarator).id);
    else if (n.type === "ClassDeclaration") bind((n as A.ClassDeclaration).id);
    work.push(...childrenOf(n));
  }
  return names;
}

/** Is this a loop statement (whose own `break` and `continue` stay inside it)? */
export const isLoop = (n: A.Node): boolean =>
  n.type === "ForStatement" ||
  n.type === "ForOfStatement" ||
  n.type === "ForInStatement" ||
  n.type === "WhileStatement" ||
  n.type === "DoWhileStatement";
