// `useTypeScript`, kept so that code written for earlier versions still runs: the library read plain functions with
// the TypeScript compiler, which a bundle had to be given. It now reads them with acorn, a dependency of its own, and
// needs nothing given.

/**
 * Does nothing: plain functions are read by the library's own parser, with or without the `typescript` package.
 *
 * @deprecated The TypeScript compiler is no longer used; remove the call.
 */
export function useTypeScript(_ts?: unknown): void {}
