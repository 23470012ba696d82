// The build (scripts/build-site.mjs) loads .smooth files as their text.
declare module "*.smooth" {
  const text: string;
  export default text;
}
