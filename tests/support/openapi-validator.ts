// Judges an HTTP answer against an OpenAPI 3.1 document, the way a contract-testing tool would:
// the status must be a documented response of the operation, every required header present and
// each documented header's value valid against its schema, the content type one the response
// documents, and the body valid against that media type's schema (ajv, JSON Schema 2020-12, the
// dialect of OpenAPI 3.1). Anything the document does not describe is a problem, named.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { describeSchemaErrors } from '../../schemas/validators.ts';
import { REPO_ROOT } from './reference-client.ts';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

export const OPENAPI_FILE = join(REPO_ROOT, 'docs', 'openapi.json');

export type OpenApiDocument = Record<string, unknown>;

/** What came back, as far as the document can describe it. */
export interface Answer {
  status: number;
  /** Name/value pairs as received (duplicates kept). */
  rawHeaders: readonly string[];
  body: string;
}

export function readOpenApiDocument(file = OPENAPI_FILE): OpenApiDocument {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** The members of an OpenAPI document that are not JSON Schema keywords, for ajv's strict mode. */
const DOCUMENT_MEMBERS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
  'externalDocs',
];
const DOCUMENT_ID = 'openapi.json';

export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, verbose: true });

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addVocabulary(DOCUMENT_MEMBERS);
    // The whole document is one schema resource, so that `#/components/schemas/…` resolves.
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /** Every way `answer` departs from the document's `method path`; none means it is described. */
  problems(method: string, path: string, answer: Answer): string[] {
    const operationPointer = ['paths', path, method.toLowerCase()];
    const operation = this.at(operationPointer);
    if (!isObject(operation)) return [`${method} ${path} is not in the document`];
    const responses = operation.responses as Record<string, unknown> | undefined;
    const key = [String(answer.status), `${String(answer.status).charAt(0)}XX`, 'default'].find(
      (candidate) => responses?.[candidate] !== undefined,
    );
    if (key === undefined) {
      return [
        `status ${answer.status} is not a documented response of ${method} ${path} (documented: ${Object.keys(responses ?? {}).join(', ')})`,
      ];
    }
    const response = this.resolve([...operationPointer, 'responses', key]);
    return [...this.headerProblems(response, answer), ...this.contentProblems(response, method, answer)].map(
      (problem) => `${method} ${path} ${answer.status}: ${problem}`,
    );
  }

  private headerProblems(response: Resolved, answer: Answer): string[] {
    const problems: string[] = [];
    const headers = (response.value.headers ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(headers)) {
      // OpenAPI 3.1 §4.8.17.1: a Content-Type header definition is ignored (content says it).
      if (name.toLowerCase() === 'content-type') continue;
      const header = this.resolve([...response.pointer, 'headers', name]);
      const values = fieldValues(answer, name);
      if (values.length === 0) {
        if (header.value.required === true) problems.push(`required header ${name} is missing`);
        continue;
      }
      // Several field lines of one header mean their values joined by commas (RFC 9110 §5.3).
      const value = values.join(', ');
      const validate = this.ajv.getSchema(schemaRef([...header.pointer, 'schema']));
      if (validate && !validate(value)) {
        problems.push(
          `header ${name}: ${JSON.stringify(value)} ${describeSchemaErrors(validate.errors).join('; ')}`,
        );
      }
    }
    return problems;
  }

  private contentProblems(response: Resolved, method: string, answer: Answer): string[] {
    const content = (response.value.content ?? {}) as Record<string, unknown>;
    const mediaTypes = Object.keys(content);
    const bodyless = method.toUpperCase() === 'HEAD';
    if (mediaTypes.length === 0) {
      return bodyless || answer.body === ''
        ? []
        : [`the response documents no content, got ${answer.body.length} characters`];
    }
    const contentType = fieldValues(answer, 'content-type')[0];
    if (contentType === undefined) return ['no Content-Type, though the response documents content'];
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const documented = mediaTypes.find(
      (candidate) =>
        candidate === mediaType || candidate === '*/*' || candidate === `${mediaType.split('/')[0]}/*`,
    );
    if (documented === undefined) {
      return [`Content-Type ${mediaType} is not documented (documented: ${mediaTypes.join(', ')})`];
    }
    // RFC 9110 §9.3.2: the answer to HEAD has the headers of GET's and no content.
    if (bodyless || !/[/+]json$/.test(mediaType)) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`the body is not JSON: ${JSON.stringify(answer.body.slice(0, 120))}`];
    }
    const validate = this.ajv.getSchema(schemaRef([...response.pointer, 'content', documented, 'schema']));
    if (!validate) return [`no schema for ${documented}`];
    return validate(body) ? [] : describeSchemaErrors(validate.errors).map((problem) => `body ${problem}`);
  }

  /** The object at `pointer`, following a `$ref` (to this document) where there is one. */
  private resolve(pointer: string[]): Resolved {
    const value = this.at(pointer);
    if (!isObject(value)) throw new Error(`Nothing at ${pointer.join('/')} in the OpenAPI document.`);
    if (typeof value.$ref !== 'string') return { value, pointer };
    if (!value.$ref.startsWith('#/')) throw new Error(`Only local $refs are followed, not ${value.$ref}.`);
    return this.resolve(
      value.$ref
        .slice(2)
        .split('/')
        .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~')),
    );
  }

  private at(pointer: readonly string[]): unknown {
    let value: unknown = this.document;
    for (const segment of pointer) value = isObject(value) ? value[segment] : undefined;
    return value;
  }
}

interface Resolved {
  value: Record<string, unknown>;
  pointer: string[];
}

/** The ajv reference of the schema at `pointer` in the document. */
function schemaRef(pointer: readonly string[]): string {
  const escaped = pointer.map((segment) =>
    encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1')),
  );
  return `${DOCUMENT_ID}#/${escaped.join('/')}`;
}

function fieldValues(answer: Answer, name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2) {
    if (answer.rawHeaders[index]?.toLowerCase() === name.toLowerCase()) {
      values.push(answer.rawHeaders[index + 1] ?? '');
    }
  }
  return values;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
