// The arguments ./programs.ts's functions are checked at (JSON data, so the tarball's projects and the browser page
// get the same), and which of them are differentiated.

export interface ProgramCase {
  /** The exported function of ./programs.ts. */
  readonly name: string;
  readonly args: readonly unknown[];
  readonly wrt: readonly number[];
}

const X = [
  [0.5, -1.2],
  [1.5, 0.25],
  [-0.75, 2],
  [0.3, 0.8],
  [-1.1, -0.4],
];
const Y = [1, 0, 1, 1, 0];

export const PROGRAM_CASES: Record<string, ProgramCase> = {
  "an ODE integrator given a closure as right-hand side": {
    name: "oscillatorEnd",
    args: [0.3, 2.5, 0.8],
    wrt: [0, 1, 2],
  },
  "the integrator with another right-hand side (destructured parameters)": {
    name: "predatorPrey",
    args: [[1.1, 0.4, 0.9, 0.3]],
    wrt: [0],
  },
  "Simpson's rule given a closure": { name: "gaussianExpectation", args: [0.4, 0.7], wrt: [0, 1] },
  "Newton's method with a while loop": { name: "cubicRoot", args: [1.5, 2.2], wrt: [0, 1] },
  "unrolled gradient descent, tuned": {
    name: "tunedRidge",
    args: [-1.2, [0.5, 1.2, -0.7, 2, 1.1, -0.3, 0.8], [1.1, 2.3, -1.2, 4.1, 2.4, -0.5, 1.5]],
    wrt: [0, 1, 2],
  },
  "logistic regression over number[][]": { name: "logisticRegression", args: [[0.1, -0.4, 0.7], X, Y], wrt: [0, 1] },
  "an MLP over layer objects holding their activation": {
    name: "mlpError",
    args: [
      [
        [0.3, -0.5],
        [0.8, 0.2],
        [-0.6, 0.4],
      ],
      [0.05, -0.1, 0.2],
      [[0.7, -0.3, 0.5]],
      X,
      [0.3, -0.2, 0.5, 0.1, -0.4],
    ],
    wrt: [0, 1, 2, 3],
  },
  "a net with an activation of the module": {
    name: "reluNet",
    args: [
      [
        [0.3, -0.5],
        [0.8, 0.2],
      ],
      [0.05, -0.1],
      [[0.7, -0.3]],
      [0.9, -0.4],
    ],
    wrt: [0, 1, 2, 3],
  },
  "an RNN over an array of cell objects": {
    name: "rnnLoss",
    args: [[0.5, 0.8, -0.1, 1.2, -0.4, 0.05], [0.3, -0.6, 0.9, 0.2], 0.25],
    wrt: [0, 1],
  },
  "k-means with a switch and helpers (squared)": {
    name: "kMeansObjective",
    args: [
      [
        [0.1, 0.2],
        [1.3, -0.4],
      ],
      X,
      0,
    ],
    wrt: [0, 1],
  },
  "k-means with a switch and helpers (smooth L1)": {
    name: "kMeansObjective",
    args: [
      [
        [0.1, 0.2],
        [1.3, -0.4],
      ],
      X,
      1,
    ],
    wrt: [0, 1],
  },
  "k-means with a switch and helpers (log cosh)": {
    name: "kMeansObjective",
    args: [
      [
        [0.1, 0.2],
        [1.3, -0.4],
      ],
      X,
      2,
    ],
    wrt: [0, 1],
  },
  "a physics step with a small class": { name: "orbitDrift", args: [[1, 0.1, 0.05, 1.1], 0.02], wrt: [0, 1] },
  "a class whose method returns a new object": {
    name: "smoothFit",
    args: [
      [0.2, -0.5, 0.3, 0.1],
      [-1, -0.3, 0.4, 1.2],
      [0.5, 0.1, -0.2, 0.9],
    ],
    wrt: [0, 1, 2],
  },
  "compose, a returned closure and applyN": { name: "iteratedMap", args: [3.1, 0.4], wrt: [0, 1] },
  "softmax attention": {
    name: "attention",
    args: [
      [0.3, -0.8],
      [
        [0.5, 0.1],
        [-0.4, 0.9],
        [1.2, -0.3],
      ],
      [1, -0.5, 2],
    ],
    wrt: [0, 1, 2],
  },
  "bilinear interpolation": {
    name: "bilinear",
    args: [
      [
        [0.1, 0.5, 0.3],
        [0.9, -0.2, 0.4],
        [0.6, 0.8, -0.5],
      ],
      1.3,
      0.6,
    ],
    wrt: [0, 1, 2],
  },
  "a Gaussian mixture with log-sum-exp": {
    name: "mixtureNll",
    args: [
      [-0.5, 1.2],
      [-0.2, 0.1],
      [0.3, -1.1, 1.5, 0.7],
    ],
    wrt: [0, 1, 2],
  },
  "power iteration": {
    name: "dominantEigenvalue",
    args: [
      [
        [2, 0.5, 0.1],
        [0.5, 1, 0.3],
        [0.1, 0.3, 0.5],
      ],
    ],
    wrt: [0],
  },
  "a robot arm with a tuple-returning helper": { name: "armReach", args: [[0.3, 0.5, -0.4], 0.9, 1.1], wrt: [0, 1, 2] },
};
