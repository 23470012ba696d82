// Small classes whose methods are pure (issue 28, item 6): objects made by `new`, fields read, methods, getters and
// static methods called (also `this.method()`), in a class of the closure or of a module text (with TypeScript's
// parameter properties). Values are the functions' own, gradients equal central differences of the functions run as
// JavaScript; a method writing `this` is a located error (objects are values in Smooth).

import { describe, expect, it } from "vitest";
import { compile, grad, typescriptModule } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, numericGradient } from "../library/helpers.js";

class Particle {
  constructor(
    public x: number,
    public v: number,
  ) {}
  step(dt: number): Particle {
    return new Particle(this.x + dt * this.v, this.v - dt * this.force());
  }
  force(): number {
    return this.x + 0.1 * this.x ** 3;
  }
  get energy(): number {
    return 0.5 * this.v * this.v + this.potential();
  }
  potential(): number {
    return 0.5 * this.x * this.x + 0.025 * this.x ** 4;
  }
  static atRest(x: number): Particle {
    return new Particle(x, 0);
  }
}

class Layer {
  bias = 0.1;
  scale: number;
  constructor(
    public w: Float64Array,
    scale: number,
  ) {
    this.scale = scale > 1 ? 1 : scale;
    if (w[2]! > 0.5) this.bias = w[2]!;
  }
  apply(x: number): number {
    return Math.tanh(this.scale * (this.w[0]! * x + this.w[1]!) + this.bias);
  }
}

class Dense {
  constructor(
    public w: number[][],
    public b: number[],
  ) {}
  forward(x: number[]): number[] {
    return this.w.map((row, i) => Math.tanh(row.reduce((s, wij, j) => s + wij * x[j]!, this.b[i]!)));
  }
}

// Layers of one shape in an array (an array of objects whose arrays differ in shape is a run-time shape error: see
// the report of issue 28), the readout a field of its own.
class Mlp {
  layers: Dense[];
  constructor(
    layers: Dense[],
    public readout: Dense,
  ) {
    this.layers = layers;
  }
  predict(x: number[]): number {
    let h = x;
    for (const layer of this.layers) h = layer.forward(h);
    return this.readout.forward(h)[0]!;
  }
  loss(xs: number[][], ys: number[]): number {
    let total = 0;
    for (let i = 0; i < xs.length; i++) total += (this.predict(xs[i]!) - ys[i]!) ** 2;
    return total / xs.length;
  }
}

function leapfrogEnergy(p: Particle, steps: number): number {
  let q = p;
  for (let i = 0; i < steps; i++) q = q.step(0.05);
  return q.energy;
}

const CASES: Record<string, (v: Float64Array) => number> = {
  "a physics step in a loop, a getter calling a method": (v) => {
    let p = new Particle(v[0]!, v[1]!);
    for (let i = 0; i < 20; i++) p = p.step(0.05);
    return p.energy + p.x;
  },
  "an object given to a function of the module": (v) => leapfrogEnergy(new Particle(v[0]!, v[1]!), 10),
  "a static method": (v) => Particle.atRest(v[0]!).step(v[1]!).energy,
  "an array of objects": (v) => {
    const ps = [new Particle(v[0]!, 0.1), new Particle(v[1]!, v[2]!), Particle.atRest(0.5)];
    let e = 0;
    for (const p of ps) e += p.step(0.1).energy;
    return e + ps.map((p) => p.x * p.v).reduce((a, b) => a + b, 0);
  },
  "field initialisers and a constructor with a branch": (v) => {
    const layers = [new Layer(v, 0.8), new Layer(new Float64Array([v[1]!, v[0]!, 0.3]), 2)];
    let h = v[2]!;
    for (let i = 0; i < layers.length; i++) h = layers[i]!.apply(h);
    return h * layers[0]!.bias;
  },
  "a class-based model: layers of a class in an array, held by an object of another": (v) => {
    const square = (a: number, b: number) =>
      new Dense(
        [
          [a, 0.3],
          [-0.2, b],
        ],
        [0.1, a * b],
      );
    const model = new Mlp([square(v[0]!, v[1]!), square(v[2]!, 0.5)], new Dense([[v[1]!, v[0]! * v[2]!]], [-0.05]));
    return model.loss(
      [
        [0.5, -1],
        [1.5, 0.25],
        [-0.7, 0.8],
      ],
      [0.2, -0.4, 0.9],
    );
  },
  "fields written from outside": (v) => {
    const p = new Particle(v[0]!, v[1]!);
    p.v = p.v * 2;
    p.x += v[2]!;
    return p.energy;
  },
};

describe("small classes in plain TypeScript", () => {
  const point = new Float64Array([0.6, -0.3, 0.9]);
  it.each(Object.entries(CASES))("%s: the function's own value, its gradient against central differences", (_, f) => {
    expect(compile(f)(point)).toBeCloseTo(f(point), 12);
    expectClose(
      Array.from(grad(f)(point)),
      numericGradient((x) => f(Float64Array.from(x)), Array.from(point)),
      1e-6,
    );
  });

  it("a class of a module text, with TypeScript's parameter properties", () => {
    const m = typescriptModule(
      [
        "class Spring {",
        "  constructor(public k: number, public rest: number) {}",
        "  energy(x: number): number { const d = x - this.rest; return 0.5 * this.k * d * d; }",
        "  get stiff(): boolean { return this.k > 10; }",
        "}",
        "export function total(x: number, k: number): number {",
        "  const s = new Spring(k, 1);",
        "  return s.stiff ? 0 : s.energy(x) + new Spring(2 * k, 0.5).energy(x);",
        "}",
      ].join("\n"),
      { fileName: "springs.ts" },
    );
    const total = (x: number, k: number) => 0.5 * k * (x - 1) ** 2 + k * (x - 0.5) ** 2;
    expect(m.total!(1.7, 3)).toBeCloseTo(total(1.7, 3), 14);
    const [dx, dk] = grad(m.total!, { argnums: [0, 1] })(1.7, 3) as number[];
    expectClose(
      [dx!, dk!],
      numericGradient((p) => total(p[0]!, p[1]!), [1.7, 3]),
      1e-7,
    );
    expect(m.total!(1.7, 30)).toBe(0);
  });
});

describe("classes the translation refuses, each at its line", () => {
  class Counter {
    n = 0;
    bump(): Counter {
      this.n = this.n + 1;
      return this;
    }
  }
  class Empty {
    twice(x: number): number {
      return 2 * x;
    }
  }
  class Chain {
    constructor(public x: number) {}
    down(n: number): number {
      return n <= 0 ? this.x : this.down(n - 1);
    }
  }
  class Base {
    constructor(public x: number) {}
  }
  class Derived extends Base {
    twice(): number {
      return 2 * this.x;
    }
  }
  class Scaled {
    static factor = 3;
    constructor(public x: number) {}
    scaled(): number {
      return this.x * Scaled.factor;
    }
  }
  const cases: [string, (x: number) => number, RegExp, string][] = [
    ["a class that extends another", (x) => new Derived(x).twice(), /`Derived` extends another class/, "Base"],
    [
      "a static field",
      (x) => new Scaled(x).scaled(),
      /`Scaled.factor`: a class's static fields are not supported/,
      "Scaled.factor",
    ],
    [
      "a method writing a field of this",
      (x) => new Counter().bump().n * x,
      /a method cannot change `this.n`: objects of a class are values here/,
      "this.n",
    ],
    [
      "a class whose objects have no fields",
      (x) => new Empty().twice(x),
      /an object of `Empty` has no fields/,
      "new Empty()",
    ],
    ["a recursive method", (x) => new Chain(x).down(3), /the method `Chain.down` calls itself/, "this.down(n - 1)"],
    [
      "a class used as a value",
      (x) => {
        const C = Particle;
        return new C(x, 0).x;
      },
      /`Particle` is a class: make its objects with `new Particle\(...\)`/,
      "Particle;",
    ],
  ];
  it.each(cases)("%s", (_, f, message, at) => {
    const e = thrown(() => grad(f)(0.5));
    expect(e.headline).toMatch(message);
    expect(e.span!.file.text.slice(e.span!.start, e.span!.start + at.length)).toBe(at);
  });
});
