// The definitions of model.smooth, as the Smooth library types them (written by `smooth types`;
// write it again when the file changes). Use: loadModule<ModelDefinitions>(path).

export interface ModelDefinitions {
  /** loss : Vector * Double -> Vector -> Double -> Double */
  readonly loss: ((p: readonly [Float64Array, number] | { readonly [key: string]: Float64Array | number }, x: Float64Array, y: number) => number) & { readonly definitionType: string };
  /** predict : Matrix -> Vector -> Vector */
  readonly predict: ((W: readonly Float64Array[], x: Float64Array) => Float64Array) & { readonly definitionType: string };
  /** count : Vector -> Index -> Double * Index */
  readonly count: ((v: Float64Array, n: number) => [number, number]) & { readonly definitionType: string };
}
