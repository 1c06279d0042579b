/** The part of negotiator 1.x this adapter uses (DefinitelyTyped's types describe 0.6, without `preferred`). */
declare module "negotiator" {
  export default class Negotiator {
    constructor(request: { readonly headers: Readonly<Record<string, string | undefined>> })
    language(available?: ReadonlyArray<string>): string | undefined
    encoding(available?: ReadonlyArray<string>, options?: { readonly preferred?: ReadonlyArray<string> }): string | undefined
  }
}
