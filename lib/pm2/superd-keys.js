// The per-app keys superd's ecosystem schema (config/schema.json) knows: a PM2 file that
// already uses one of them keeps it as it is.
import { ecosystemSchema } from '../config/schema-check.js';

export const superdAppKeys = new Set(Object.keys(ecosystemSchema().$defs.app.properties));
