// What a route declares about itself for the API documentation (/docs): its request and response
// schemas are the contract's zod schemas (src/contract), the same ones the route parses its input
// with, turned into JSON Schema here. Fastify neither validates nor serialises with them (see
// `documentationOnly`): the route's own zod parsing gives the contract's error messages, and
// answers keep every field the route writes.
import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { apiErrorBodySchema } from '../../contract/errors';
import { pageQuerySchema } from '../../contract/paging';

type JsonSchema = Record<string, unknown>;

/** JSON Schema of a zod schema as it is sent (input side), self-contained for embedding in OpenAPI. */
export function jsonSchema(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', cycles: 'ref', reused: 'inline' }) as JsonSchema;
  delete out.$schema;
  // A recursive schema (the assembly tree) refers to its own $defs, which mean nothing once
  // embedded in the document: those places are documented as plain objects.
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== 'object') return node;
    const o = node as JsonSchema;
    if (typeof o.$ref === 'string' && o.$ref.startsWith('#/$defs/')) return { type: 'object' };
    return Object.fromEntries(Object.entries(o).filter(([k]) => k !== '$defs').map(([k, v]) => [k, inline(v)]));
  };
  return inline(out) as JsonSchema;
}

/** Query parameters every list and match answer takes (api-contract.md, Pagination, filtering, ordering). */
export const listQueryDocs = pageQuerySchema.extend({
  filter: z.string().optional().describe("Clauses joined by commas, e.g. fileType(eq(stl)),name(like('bracket*'))"),
  order: z.string().optional().describe('Fields joined by commas, "-" before a field for descending, e.g. -createdAt,name'),
  search: z.string().optional(),
});

export interface RouteDocs {
  summary: string;
  description?: string;
  tag: 'Models' | 'Matches' | 'Reports' | 'Duplicate review' | 'Metadata' | 'Folders' | 'Images' | 'Users' | 'Client credentials';
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** Status → answer schema; null for an answer without a body. */
  response: Record<number, z.ZodType | null>;
}

/** The route's `schema` option: documentation from the contract, with the contract's error shape. */
export function routeDocs(d: RouteDocs): FastifySchema {
  const response: Record<string, JsonSchema> = {};
  for (const [status, schema] of Object.entries(d.response)) {
    response[status] = schema ? { description: 'OK', ...jsonSchema(schema) } : { description: 'No content', type: 'null' };
  }
  response['4xx'] = { description: 'The contract\'s error: {"error": {"message", "code"}}', ...jsonSchema(apiErrorBodySchema) };
  return {
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    tags: [d.tag],
    ...(d.params ? { params: jsonSchema(d.params) } : {}),
    ...(d.querystring ? { querystring: jsonSchema(d.querystring) } : {}),
    ...(d.body ? { body: jsonSchema(d.body) } : {}),
    response,
  } as FastifySchema;
}

/**
 * Routes in `app` parse their own input with the contract's schemas and write their own answers:
 * the declared schemas are for the documentation only.
 */
export function documentationOnly(app: FastifyInstance) {
  app.setValidatorCompiler(() => (data: unknown) => ({ value: data }));
  app.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));
}

