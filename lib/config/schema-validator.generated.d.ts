// The type of ajv's generated validator (schema-validator.generated.js), so that the type
// check (tsconfig.json) reads this instead of checking ajv's generated code.
export interface SchemaError { instancePath: string; schemaPath: string; keyword: string; params: Record<string, any>; message?: string; propertyName?: string }
export declare const validate: ((data: unknown) => boolean) & { errors: SchemaError[] | null };
export default validate;
