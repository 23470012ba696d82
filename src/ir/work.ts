// Compile work, counted: how many IR nodes the compiler's shared walks have visited in this process (forEachNode,
// someNode, freeVars, sizes, mapNode, substitution and copies, alpha-equality, use analysis, dead-let removal, the
// rewriter's sweep). A deterministic measure of how compile cost grows with a program, where time is noisy: the
// growth tests compile a construct at two sizes and compare the counts (test/robust/growth.test.ts). Never reset:
// callers take differences. One increment per node visited, next to the work of visiting it.

export const compileWork = { nodes: 0 };
