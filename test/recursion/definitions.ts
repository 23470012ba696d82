// Recursive functions the second-derivative tests share: self- and mutually recursive, tail and non-tail, with
// Double, Index and Vector parameters and Double and Vector results, divide and conquer.

export const RECURSIVE_DEFINITIONS = `
let rec sq (a: Double) (n: Index) : Double = if n = 0 then a else sq (a * a) (n - 1)
let rec pw (x: Double) (n: Index) : Double = if n = 0 then 1. else x * pw x (n - 1)
let rec ping (x: Double) (y: Double) (n: Index) : Double = if n = 0 then x * y else pong (sin x) (x + y) (n - 1)
and pong (x: Double) (y: Double) (n: Index) : Double = if n = 0 then x - y else ping (y * 0.5) (x * y) (n - 1)
let rec lin (v: Vector) (i: Index) : Double = if i = length v then 0. else sin v[i] * v[i] * v[0] + lin v (i + 1)
let rec fold (v: Vector) (i: Index) (s: Double) : Double = if i = length v then s else fold v (i + 1) (s * v[i] + cos s)
let rec roll (v: Vector) (n: Index) : Vector =
  if n = 0 then v else roll (build (length v) (fun i -> v[i] * v[if i + 1 = length v then 0 else i + 1])) (n - 1)
let rec alias (a: Double) (n: Index) : Double =
  if n <= 0 then (let (b, c) = (a, a) in b * c + sin b) else a * alias (max 0.5 a) (n - 1)
let rec halves (v: Vector) (lo: Index) (hi: Index) : Double =
  if hi - lo = 1 then exp (v[lo] * 0.5) * v[lo] else (let mid = (lo + hi) / 2 in halves v lo mid * halves v mid hi)
`;
