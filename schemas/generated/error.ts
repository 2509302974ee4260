/* Generated from schemas/error.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * Spec §7: an error response is a JSON object with one member `error`, an object with two string fields, `code` and `message`.
 */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
  };
}
