// Packages that only a benchmark or the browser tests use, kept out of `npm install` (node_modules stays small):
// their versions are package.json's "onDemandDependencies", and they are installed into .on-demand/ (not committed),
// apart from the project's own tree, by `node scripts/on-demand.mjs NAME...` (or `npm run setup:browser`).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const root = new URL("../", import.meta.url);
const dir = new URL(".on-demand/", root);
const versions = JSON.parse(readFileSync(new URL("package.json", root), "utf8")).onDemandDependencies;

/** The command that installs these packages, for messages. */
export const installCommand = (names) => `node scripts/on-demand.mjs ${names.join(" ")}`;

/** Whether `name` is installed in .on-demand/. */
export const isInstalled = (name) => existsSync(new URL(`node_modules/${name}/package.json`, dir));

/**
 * The module `name` (installed on demand), or undefined when it is not installed: imported from inside .on-demand/ so
 * that it resolves there, with the `import` conditions. A CommonJS module comes as its `module.exports`.
 */
export async function importOnDemand(name) {
  if (!isInstalled(name)) return undefined;
  const loader = new URL("import.mjs", dir);
  if (!existsSync(loader)) writeFileSync(loader, "export const load = (name) => import(name);\n");
  const mod = await (await import(pathToFileURL(loader.pathname).href)).load(name);
  return mod.default ?? mod;
}

/** Installs the named packages at their recorded versions (those already there are left alone). */
export function installOnDemand(names) {
  const missing = names.filter((n) => !isInstalled(n));
  for (const n of names) if (!versions[n]) throw new Error(`${n} is not in package.json's onDemandDependencies`);
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  const pkg = new URL("package.json", dir);
  if (!existsSync(pkg)) writeFileSync(pkg, JSON.stringify({ name: "smooth-on-demand", private: true }) + "\n");
  const specs = missing.map((n) => `${n}@${versions[n]}`);
  console.error(`installing ${specs.join(", ")} into .on-demand/`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...specs], {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const names = process.argv.slice(2);
  if (names.length === 0) {
    console.error(`usage: node scripts/on-demand.mjs NAME...\n  one of: ${Object.keys(versions).join(", ")}`);
    process.exit(1);
  }
  installOnDemand(names);
}
