/** node-postgres's value preparation (pg/lib/utils.js), which its package declares no types for. */
declare module "pg/lib/utils.js" {
  const utils: { readonly prepareValue: (value: unknown) => unknown }
  export default utils
}
