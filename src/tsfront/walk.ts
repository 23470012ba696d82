// Walks over TypeScript syntax trees without recursion: an expression nests as deeply as it is long (a sum of 10⁴
// terms is 10⁴ nested binary expressions), more than Node's default stack holds in recursive calls.

import type * as TS from "typescript";
import type { TypeScript } from "./compiler.js";

/**
 * Visits `root` and the nodes inside it in the order a recursive walk takes (a node, then its children left to
 * right), from an explicit stack. `visit` gives the state the node's children are visited with (`state` for the
 * root), or undefined to skip them.
 */
export function walkTree<S>(
  ts: TypeScript,
  root: TS.Node,
  state: S,
  visit: (node: TS.Node, state: S) => S | undefined,
): void {
  const work: [TS.Node, S][] = [[root, state]];
  const children: TS.Node[] = [];
  while (work.length > 0) {
    const [node, outer] = work.pop()!;
    const inner = visit(node, outer);
    if (inner === undefined) continue;
    children.length = 0;
    ts.forEachChild(node, (child) => {
      children.push(child);
    });
    for (let k = children.length - 1; k >= 0; k--) work.push([children[k]!, inner]);
  }
}
