// The documentation site (VitePress): the guide and references written in docs/, the API reference TypeDoc generates
// from the library's TSDoc comments into docs/api/ (scripts/build-docs.mjs runs it first), and the playground, built
// by scripts/build-site.mjs and copied in as /playground/. `npm run docs` builds it into docs/.vitepress/dist.
import { existsSync, readFileSync } from "node:fs";
import { defineConfig } from "vitepress";

/** TypeDoc's sidebar for the API reference (typedoc-vitepress-theme writes it), when it has been generated. */
function apiSidebar() {
  const file = new URL("../api/typedoc-sidebar.json", import.meta.url);
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : [];
}

export default defineConfig({
  title: "Smooth",
  description: "Differentiable programming on arrays: a compiler and library in TypeScript",
  cleanUrls: false,
  lastUpdated: false,
  // The generated API pages link to sources outside docs/; README-style relative links to the repository are checked.
  ignoreDeadLinks: [/^\.\.\/\.\.\//, /^https?:/],
  srcExclude: ["**/README.md"],
  markdown: {
    // Smooth's syntax is F#-like; fsharp is the closest grammar Shiki has.
    languageAlias: { smooth: "fsharp" },
  },
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Guide", link: "/guide/install" },
      { text: "Language", link: "/language/" },
      { text: "API", link: "/api/" },
      { text: "Playground", link: "/playground/index.html", target: "_self" },
    ],
    sidebar: {
      "/api/": [{ text: "API reference", items: apiSidebar() }],
      "/": [
        {
          text: "Guide",
          items: [
            { text: "Install", link: "/guide/install" },
            { text: "Plain TypeScript", link: "/guide/typescript" },
            { text: "The library", link: "/guide/library" },
            { text: "Derivatives", link: "/guide/derivatives" },
            { text: "Sparse Jacobians and Hessians", link: "/sparse" },
            { text: "The command line", link: "/guide/cli" },
          ],
        },
        {
          text: "Reference",
          items: [
            { text: "The language", link: "/language/" },
            { text: "Back ends", link: "/backends" },
            { text: "API reference", link: "/api/" },
          ],
        },
        {
          text: "Performance and testing",
          items: [
            { text: "Benchmarks", link: "/benchmarks" },
            { text: "GradBench", link: "/gradbench" },
            { text: "Testing and fuzzing", link: "/testing" },
          ],
        },
        {
          text: "Design",
          items: [
            { text: "Design notes", link: "/design" },
            { text: "Contributing", link: "/contributing" },
          ],
        },
      ],
    },
  },
});
