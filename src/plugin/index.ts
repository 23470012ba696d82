// `smooth-ad/plugin`: Smooth's bundler plugin, for esbuild, and for Rollup and Vite (one Rollup-style plugin serves
// both).
// A browser gives JavaScript no way to read a function's closure, which the library needs for the data a function
// given to `grad` (or any transform) reads from outside: the plugin marks such functions at build time with an
// accessor of those variables (./transform.ts). In Node the library reads closures itself, and uses the accessor where
// the plugin wrote one.
//
// esbuild:  await build({ ..., plugins: [smoothEsbuild()] })
// Vite:     export default { plugins: [smoothVite()] }
// Rollup:   export default { ..., plugins: [smoothRollup()] }

import { transformClosures, type TransformOptions } from "./transform.js";

export { transformClosures, LIBRARY_MODULES, TRANSFORMS, type TransformOptions } from "./transform.js";

export interface PluginOptions extends TransformOptions {
  /** The files to read (default: JavaScript and TypeScript files). */
  readonly include?: RegExp;
  /** Files left alone (default: those under node_modules). */
  readonly exclude?: RegExp;
}

const INCLUDE = /\.[cm]?[jt]sx?$/;
const EXCLUDE = /[\\/]node_modules[\\/]/;

const wanted = (path: string, o: PluginOptions): boolean =>
  !path.startsWith("\0") && (o.include ?? INCLUDE).test(path) && !(o.exclude ?? EXCLUDE).test(path);

/** What the plugin uses of esbuild's plugin API. */
export interface EsbuildPlugin {
  readonly name: string;
  setup(build: {
    readonly onLoad: (
      options: { filter: RegExp },
      callback: (args: { path: string; namespace: string }) => Promise<EsbuildLoadResult | undefined>,
    ) => void;
  }): void;
}
export interface EsbuildLoadResult {
  readonly contents: string;
  readonly loader: "js" | "jsx" | "ts" | "tsx";
  readonly resolveDir: string;
  readonly warnings?: { text: string }[];
}

const loaderOf = (path: string): EsbuildLoadResult["loader"] =>
  /\.[cm]?tsx$/.test(path) ? "tsx" : /\.[cm]?ts$/.test(path) ? "ts" : /\.jsx$/.test(path) ? "jsx" : "js";

/** Smooth's plugin for esbuild: marks closures in the files it loads (with an inline source map). */
export function smoothEsbuild(options: PluginOptions = {}): EsbuildPlugin {
  return {
    name: "smooth-ad",
    setup(build) {
      build.onLoad({ filter: options.include ?? INCLUDE }, async (args) => {
        if (args.namespace !== "file" || !wanted(args.path, options)) return undefined;
        const fs = await import("node:fs/promises");
        const path = await import("node:path");
        const code = await fs.readFile(args.path, "utf8");
        const warnings: { text: string }[] = [];
        const out = transformClosures(code, args.path, options, (text) => warnings.push({ text }));
        const loader = loaderOf(args.path);
        const resolveDir = path.dirname(args.path);
        if (!out) return warnings.length > 0 ? { contents: code, loader, resolveDir, warnings } : undefined;
        const map = Buffer.from(out.map.toString()).toString("base64");
        return {
          // (The comment's text is split here so that a tool reading this file does not take it for this file's.)
          contents: `${out.code}//# ${"sourceMappingURL"}=data:application/json;charset=utf-8;base64,${map}\n`,
          loader,
          resolveDir,
        };
      });
    },
  };
}

/** A source map (version 3), as Rollup takes one. */
export interface SourceMap {
  readonly version: number;
  readonly file?: string;
  readonly sources: string[];
  readonly sourcesContent?: (string | null)[];
  readonly names: string[];
  readonly mappings: string;
}

/** What the plugin uses of Rollup's (and Vite's) plugin API. */
export interface RollupPlugin {
  readonly name: string;
  transform(this: { warn(message: string): void }, code: string, id: string): { code: string; map: SourceMap } | null;
}

/** Smooth's plugin for Rollup and Vite: marks closures in the modules it transforms (with their source maps). */
export function smoothRollup(options: PluginOptions = {}): RollupPlugin {
  return {
    name: "smooth-ad",
    transform(code, id) {
      if (!wanted(id.split("?")[0]!, options)) return null;
      const out = transformClosures(code, id, options, (message) => this.warn(message));
      if (!out) return null;
      const { version, file, sources, sourcesContent, names, mappings } = out.map;
      return {
        code: out.code,
        map: {
          version,
          sources,
          names,
          mappings,
          ...(file ? { file } : {}),
          ...(sourcesContent ? { sourcesContent } : {}),
        },
      };
    },
  };
}

/** Smooth's plugin for Vite (Rollup's plugin: Vite runs it in development and in builds). */
export const smoothVite = smoothRollup;
