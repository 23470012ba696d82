// Walks over syntax trees without recursion: an expression nests as deeply as it is long (a sum of 10⁴ terms is 10⁴
// nested binary expressions), more than Node's default stack holds in recursive calls.

import { childrenOf, type Node } from "./syntax.js";

/**
 * Visits `root` and the nodes inside it in the order a recursive walk takes (a node, then its children left to
 * right), from an explicit stack. `visit` gives the state the node's children are visited with (`state` for the
 * root), or undefined to skip them.
 */
export function walkTree<S>(root: Node, state: S, visit: (node: Node, state: S) => S | undefined): void {
  const work: [Node, S][] = [[root, state]];
  while (work.length > 0) {
    const [node, outer] = work.pop()!;
    const inner = visit(node, outer);
    if (inner === undefined) continue;
    const children = childrenOf(node);
    for (let k = children.length - 1; k >= 0; k--) work.push([children[k]!, inner]);
  }
}
