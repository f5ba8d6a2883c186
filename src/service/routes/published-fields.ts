// A strict deployment of the published API (PUBLISHED_FIELDS_ONLY): the app must work against a
// service that answers only what the published document (Physna Public API 2.0.1) defines, as the
// hosted service does. Every JSON answer of an operation the document defines is written again by
// fast-json-stringify — fastify's own serializer — from that operation's response schema for the
// status, which writes the schema's properties and nothing else: our additions (filePath,
// stateReason, viewerFile, missingParts, facts, …) are left out. Operations the document does not
// define answer as usual.
import { readFileSync } from 'node:fs';
import fastJson from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';

type Schema = Record<string, unknown>;
interface OpenApiDocument {
  servers?: { url: string }[];
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
  components?: Schema;
}

/**
 * The document without `additionalProperties: false`: fast-json-stringify writes no property a
 * schema does not name unless it allows more, and the lifted form lets it pick an `anyOf` branch
 * for an answer that still carries our fields.
 */
function lifted(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lifted);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'additionalProperties' && v === false))
      .map(([k, v]) => [k, lifted(v)]),
  );
}

/** Null fields left out, as the published API does (a null would be written as 0 or ""). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** `/models/{id}` and `/v2/models/:modelId` alike: parameters blanked, so templates compare by shape. */
const shapeOf = (template: string) => template.replace(/\{[^}]+\}|:[^/]+/g, '{}');

/** The response schema of one answer: the status's own, or for any 2xx the document's first 2xx. */
function responseSchema(responses: NonNullable<OpenApiDocument['paths'][string][string]['responses']>, status: number): Schema | undefined {
  const key = responses[String(status)] ? String(status) : status < 300 ? Object.keys(responses).find((k) => k.startsWith('2')) : undefined;
  return key ? responses[key]?.content?.['application/json']?.schema : undefined;
}

export function publishedFieldsOnly(api: FastifyInstance, documentPath: string): void {
  const document = lifted(JSON.parse(readFileSync(documentPath, 'utf8'))) as OpenApiDocument;
  const base = (document.servers?.[0]?.url ?? '').replace(/\/+$/, '');
  const operations = new Map<string, NonNullable<OpenApiDocument['paths'][string][string]['responses']>>();
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods))
      if (operation.responses) operations.set(`${method.toUpperCase()} ${shapeOf(base + template)}`, operation.responses);
  }
  const writers = new Map<string, ((data: unknown) => string) | null>();
  const writerFor = (key: string, status: number) => {
    const id = `${key} ${status}`;
    if (!writers.has(id)) {
      const responses = operations.get(key);
      const schema = responses && responseSchema(responses, status);
      // The document's references are to its own components: compiled as part of the schema.
      writers.set(
        id,
        schema
          ? (fastJson({ ...schema, components: document.components } as unknown as Parameters<typeof fastJson>[0]) as (
              data: unknown,
            ) => string)
          : null,
      );
    }
    return writers.get(id) ?? null;
  };

  api.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (typeof payload !== 'string' || !route || !String(reply.getHeader('content-type') ?? '').startsWith('application/json'))
      return payload;
    const own = `${request.method} ${shapeOf(route)}`;
    // Routes of ours the document also serves under its own names (/client-credentials without /v2).
    const key = operations.has(own) ? own : `${request.method} ${shapeOf(base + route)}`;
    const write = writerFor(key, reply.statusCode);
    if (!write) return payload;
    try {
      return write(withoutNulls(JSON.parse(payload)));
    } catch (error) {
      // An answer without a field the document requires (GET /client-credentials of a user who
      // has none: the published API knows one per user) is answered as the document answers an
      // absence, 404, where it lists one.
      const absent = operations.get(key)?.['404'] ? 404 : 500;
      request.log.warn({ err: error, route }, 'an answer does not fit the published schema');
      reply.code(absent);
      return JSON.stringify({
        error: { message: absent === 404 ? 'Nothing of this kind exists yet.' : 'The answer does not fit the published API.' },
      });
    }
  });
}
