// The per-app keys superd's ecosystem schema (config/schema.json) knows: a PM2 file that
// already uses one of them keeps it as it is.
import { readFileSync } from 'node:fs';

const schema = JSON.parse(readFileSync(new URL('../../config/schema.json', import.meta.url), 'utf8'));

export const superdAppKeys = new Set(Object.keys(schema.$defs.app.properties));
