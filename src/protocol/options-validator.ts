/**
 * The function that runs an options schema's checks: either precompiled by the generator
 * (src/generated/M.options.validator.ts, Ajv standalone code) or compiled by Ajv at run time.
 * Both report Ajv's ErrorObjects in `errors` after a failed call.
 */
import type { ErrorObject } from "ajv";

export interface OptionsValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
