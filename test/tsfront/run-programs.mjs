// Runs ./programs.ts's text through `typescriptModule` at ./programs-cases.ts's arguments: for each case, the value
// then every number of the gradient. Plain JavaScript, so the tarball's projects and the browser page run this very
// file with the package's own `grad` and `typescriptModule`, and the tests compare what they print with Node's.

/** Every number of a gradient (a number, a Float64Array, or arrays of them), in order. */
function numbers(x) {
  if (typeof x === "number") return [x];
  return Array.from(x).flatMap(numbers);
}

export function runPrograms({ grad, typescriptModule }, text, cases) {
  const m = typescriptModule(text, { fileName: "programs.ts" });
  const out = {};
  for (const [label, c] of Object.entries(cases)) {
    const value = m[c.name](...c.args);
    const gradients = grad(m[c.name], { argnums: c.wrt })(...c.args);
    out[label] = [value, ...numbers(gradients)];
  }
  return out;
}
