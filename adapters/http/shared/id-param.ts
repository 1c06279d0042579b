import { Schema } from "effect"

/** An object of one id under `K`. */
export type IdOf<K extends string, A> = { readonly [P in K]: A }

/** A path schema: strings in, the values of `A` out. */
export type PathSchema<A> = Schema.Schema<A, { readonly [P in keyof A]: string }>

/**
 * How a wire form names the id in a path: the reference form after the resource
 * (`/templates/:template_id`), the overview form plainly (`/templates/:id`). Shared endpoints take
 * it, so that a form's naming is all it gives of a path.
 */
export interface IdParam<K extends string, A> {
  /** The segment that stands for the id: `/:template_id`. */
  readonly segment: `/:${K}`
  /** The path of a route that names this id alone. */
  readonly path: PathSchema<IdOf<K, A>>
  /** The path of a route that names this id and more (`/:id/notes/:note_id`). */
  readonly with: <F extends Record<string, Schema.Schema.AnyNoContext>>(
    fields: F
  ) => PathSchema<IdOf<K, A> & { readonly [P in keyof F]: Schema.Schema.Type<F[P]> }>
}

/** The id `key` of a path, read with `id`. */
export const idParam = <const K extends string, A>(key: K, id: Schema.Schema<A, string>): IdParam<K, A> => ({
  segment: `/:${key}`,
  path: Schema.Struct({ [key]: id }) as unknown as PathSchema<IdOf<K, A>>,
  with: (fields) => Schema.Struct({ [key]: id, ...fields }) as never
})
