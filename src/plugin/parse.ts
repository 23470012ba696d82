// The bundler plugin's parser: acorn, with its TypeScript plugin for TypeScript files (a bundler may give the plugin a
// module before or after it strips the types), the same packages the library bundles to read functions.

import type * as A from "acorn";
import { Parser, type Options } from "acorn";
import { tsPlugin } from "@sveltejs/acorn-typescript";

const OPTIONS: Options = {
  ecmaVersion: "latest",
  sourceType: "module",
  allowHashBang: true,
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
};

let typescript: typeof Parser | undefined;
let tsx: typeof Parser | undefined;

/** The module `code` of file `id` (JavaScript, or TypeScript by its extension) as acorn's tree. */
export function parseForPlugin(code: string, id: string): A.Program {
  const file = id.split("?")[0]!;
  if (/\.[cm]?tsx$/.test(file)) return (tsx ??= Parser.extend(tsPlugin({ jsx: true }))).parse(code, withLocations);
  if (/\.[cm]?ts$/.test(file)) return (typescript ??= Parser.extend(tsPlugin())).parse(code, withLocations);
  return Parser.parse(code, OPTIONS);
}

// (The TypeScript plugin needs positions as lines and columns too.)
const withLocations: Options = { ...OPTIONS, locations: true };
