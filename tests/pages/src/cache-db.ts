// The cache's IndexedDB database name, read from the package's cache module (its one
// definition), for the pages that look into the database from outside the package.
// @ts-expect-error cache.js is the package's untyped, lazily loaded module (no typings shipped)
import { DB } from '../../../cache.js'

export const CACHE_DB: string = DB
