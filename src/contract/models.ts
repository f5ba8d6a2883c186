import { z } from 'zod';
import { pageDataSchema } from './paging';
import { defaultUpAxis, upAxes, type UpAxis } from './file-types';

/** Model states of the published API plus our `processing`. */
export const modelStates = [
  'incomplete-upload',
  'processing',
  'unsupported',
  'failed-incomplete',
  'failed',
  'finished-incomplete',
  'finished',
] as const;
export type KnownModelState = (typeof modelStates)[number];

/** States after which nothing happens unless a part arrives or someone reprocesses. */
export const settledStates: readonly KnownModelState[] = ['unsupported', 'failed-incomplete', 'failed', 'finished-incomplete', 'finished'];
/** States in which a model takes part in search and matching (only finished models are matched). */
export const searchableStates: readonly KnownModelState[] = ['finished', 'finished-incomplete'];

/** Any state the client does not know counts as still working. */
export function isSettled(state: string): boolean {
  return (settledStates as readonly string[]).includes(state);
}

export const metadataPairSchema = z.object({
  metadataKeyId: z.number().int(),
  value: z.string(),
});
export type MetadataPair = z.infer<typeof metadataPairSchema>;

/** A metadata value as a model carries it; `modelId` and `name` are the published API's, optional for other deployments. */
export const modelMetadataSchema = metadataPairSchema.extend({
  modelId: z.string().optional(),
  /** The key's name. */
  name: z.string().nullish(),
});
export type ModelMetadata = z.infer<typeof modelMetadataSchema>;

export const meshFactsSchema = z.object({
  triangles: z.number().int().nonnegative(),
  boundingBox: z.object({ min: z.array(z.number()).length(3), max: z.array(z.number()).length(3) }),
  surfaceArea: z.number().nonnegative(),
  volume: z.number().nullable(),
  shells: z.number().int().nonnegative(),
  /** Shells closed on their own; with some open, the volume those closed ones enclose (absent on models read before these existed). */
  closedShells: z.number().int().nonnegative().optional(),
  closedVolume: z.number().nullable().optional(),
  units: z.string(),
  /**
   * Present when the file had more triangles than search and pictures use: they come from a copy
   * of `triangles`, no corner farther than `tolerance` (in `units`) from the file's surface.
   */
  simplified: z.object({ triangles: z.number().int().nonnegative(), tolerance: z.number().nonnegative() }).optional(),
  /** The reader of a CAD file: "opencascade-native" (OpenCascade built for the machine) or "occt-import-js" (WebAssembly). */
  reader: z.string().optional(),
});
export type MeshFactsDto = z.infer<typeof meshFactsSchema>;

export const modelSchema = z.object({
  id: z.string(),
  name: z.string(),
  filePath: z.string(),
  fileName: z.string(),
  fileType: z.string(),
  folderId: z.number().int(),
  isAssembly: z.boolean(),
  /** The user who created the model (published API); optional for other deployments. */
  ownerId: z.string().optional(),
  /** Length unit of the geometry ("mm", "in", "m", … or "unknown" for formats that do not say). */
  units: z.string().optional(),
  /** A string, not an enum: clients treat unknown states as still working. */
  state: z.string(),
  stateReason: z.string().nullish(),
  metadata: z.array(modelMetadataSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  thumbnail: z.string().nullish(),
  /** Signed address of the viewer GLB, where the service includes it (saves a viewer-file request per model). */
  viewerFile: z.string().nullish(),
  missingParts: z.array(z.string()).nullish(),
  partCount: z.number().int().nullish(),
  facts: meshFactsSchema.nullish(),
  /** The axis the model stands on in thumbnails and 3D views (file-types.ts); absent: the file format's. */
  upAxis: z.enum(upAxes).optional(),
  /** Size of the uploaded source file in bytes; null while the upload is incomplete. */
  fileSize: z.number().int().nonnegative().nullish(),
});
export type Model = z.infer<typeof modelSchema>;

/** Units a mesh file can be declared in at upload (this service's addition to the create item). */
export const declaredUnitChoices = ['mm', 'in', 'm'] as const;
export type DeclaredUnit = (typeof declaredUnitChoices)[number];

export const createModelItemSchema = z.object({
  filePath: z.string(),
  name: z.string().max(1000),
  metadata: z.array(metadataPairSchema).optional(),
  /** For mesh files that do not say their unit (STL, OBJ, PLY, OFF): the unit their numbers are in. */
  units: z.enum(declaredUnitChoices).optional(),
});
export const createModelsRequestSchema = z.object({
  models: z.array(createModelItemSchema),
});
export type CreateModelsRequest = z.infer<typeof createModelsRequestSchema>;

/** The sizes an upload address accepts (published API); optional for other deployments. */
export const fileSizeRequirementsSchema = z.object({ minSizeInBytes: z.number(), maxSizeInBytes: z.number() });

export const uploadInfoSchema = z.object({
  uploadUrl: z.string(),
  headers: z.record(z.string(), z.string()),
  fileSizeRequirements: fileSizeRequirementsSchema.optional(),
});
export type UploadInfo = z.infer<typeof uploadInfoSchema>;

/** A created model as the published API and this service write it: either shape of the upload address, or both. */
export const createdModelEntryWireSchema = z.object({
  model: modelSchema,
  uploadUrl: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  uploadInfo: uploadInfoSchema.optional(),
});
/** `POST /v2/models` as written (the service writes both shapes at once). */
export const createModelsWireResponseSchema = z.object({ models: z.array(createdModelEntryWireSchema) });
/** A created model as a client reads it: a deployment may write either shape, so a client accepts either. */
export const createdModelEntrySchema = createdModelEntryWireSchema.transform((entry, ctx) => {
  const uploadUrl = entry.uploadUrl ?? entry.uploadInfo?.uploadUrl;
  const headers = entry.headers ?? entry.uploadInfo?.headers;
  if (!uploadUrl || !headers) {
    ctx.addIssue({ code: 'custom', message: 'created model without upload address' });
    return z.NEVER;
  }
  return { model: entry.model, uploadUrl, headers };
});
export const createModelsResponseSchema = z.object({ models: z.array(createdModelEntrySchema) });

export const modelResponseSchema = z.object({ model: modelSchema });
export const modelListResponseSchema = z.object({ models: z.array(modelSchema), pageData: pageDataSchema });
export type ModelListResponse = z.infer<typeof modelListResponseSchema>;

export const viewerFileResponseSchema = z.object({ viewerFile: z.string() });
export const sourceFileResponseSchema = z.object({ sourceFile: z.string() });
/** Metadata values a page at a time: `GET /v2/models/{id}/metadata`, `GET /v2/metadata`. */
export const metadataValueListResponseSchema = z.object({ metadata: z.array(modelMetadataSchema), pageData: pageDataSchema });
/** `PUT /v2/models/{id}/metadata/{keyId}`: the model, and the value set (published `metadata`). */
export const setMetadataValueResponseSchema = modelResponseSchema.extend({ metadata: modelMetadataSchema.optional() });
export const deletedResponseSchema = z.object({ deleted: z.boolean() });
/** `GET /v2/models/match-report` (published): models with how many others match them. */
export const matchReportResponseSchema = z.object({
  results: z.array(z.object({ model: modelSchema, matchCount: z.number().int().nonnegative() })),
  total: z.number().int().nonnegative(),
  pageData: pageDataSchema.optional(),
  threshold: z.number().optional(),
});

/** `GET /v2/models/state-report?folderIds=` (published): models per state. */
export const stateReportResponseSchema = z.object({ states: z.record(z.string(), z.number()) });
export type StateReport = z.infer<typeof stateReportResponseSchema>;

/**
 * One node of an assembly tree. On the wire a part is `assemblyPart` (published API); `part` is
 * how trees are stored and how older answers said it. Identical siblings are one node with
 * `occurrences` and every placement in `transforms`. `modelId` is empty (or null, in older
 * answers) for a part whose file is missing.
 */
export type AssemblyTreeNode = {
  type: 'part' | 'assemblyPart' | 'subAssembly';
  modelId: string | null;
  name: string;
  /** Relative to the parent; the published API sends none. */
  transform?: number[];
  occurrences?: number;
  transforms?: number[][];
  children?: AssemblyTreeNode[];
};
export const assemblyTreeNodeSchema: z.ZodType<AssemblyTreeNode> = z.lazy(() =>
  z.object({
    type: z.enum(['part', 'assemblyPart', 'subAssembly']),
    modelId: z.string().nullable(),
    name: z.string(),
    transform: z.array(z.number()).optional(),
    occurrences: z.number().int().positive().optional(),
    transforms: z.array(z.array(z.number())).optional(),
    children: z.array(assemblyTreeNodeSchema).optional(),
  }),
);
export const assemblyTreeResponseSchema = z.object({
  type: z.literal('assemblyTree'),
  modelId: z.string(),
  children: z.array(assemblyTreeNodeSchema),
});
export type AssemblyTree = z.infer<typeof assemblyTreeResponseSchema>;

/**
 * `GET /v2/models/{id}/where-used` (this service's addition): the assemblies that use a part — by
 * reference (their tree places it) and by shape (part-in-part finds ≥ 90 % of it in them), each once.
 */
export const whereUsedResponseSchema = z.object({
  assemblies: z.array(
    z.object({
      model: modelSchema,
      by: z.enum(['reference', 'shape']),
      /** How many the assembly places: from its tree, or the copies part-in-part found. */
      quantity: z.number().int().positive().optional(),
      /** By shape: the share of the part found in the assembly. */
      matchPercentage: z.number().min(0).max(100).optional(),
    }),
  ),
});
export type WhereUsed = z.infer<typeof whereUsedResponseSchema>;

/**
 * `GET /v2/models/{id}/part-list` (this service's addition): an assembly's parts however deep, each
 * once with the quantity the whole assembly places; `format=csv` answers the same as a CSV file.
 */
export const partListResponseSchema = z.object({
  parts: z.array(
    z.object({
      /** Empty for a part whose file is missing. */
      modelId: z.string(),
      name: z.string(),
      /** The part's file in the library; null when missing. */
      filePath: z.string().nullable(),
      quantity: z.number().int().positive(),
      /** The part model's state, or "missing". */
      state: z.string(),
      units: z.string().nullable(),
    }),
  ),
});
export type PartList = z.infer<typeof partListResponseSchema>;

/** Models one create or bulk-delete request takes at most. */
export const MAX_MODELS_PER_REQUEST = 100;

/** `PATCH /v2/models/{id}` (this service's addition): the folder to move the model into. */
/** `PATCH /v2/models/{id}`: move it to another folder, or stand it on another axis (or both). */
export const updateModelRequestSchema = z
  .object({ folderId: z.number().int().positive().optional(), upAxis: z.enum(upAxes).optional() })
  .refine((body) => body.folderId !== undefined || body.upAxis !== undefined, { message: 'Give folderId, upAxis or both.' });
export type UpdateModelRequest = z.infer<typeof updateModelRequestSchema>;

/** The axis a model stands on: as the service says, or (a deployment that does not say) its format's. */
export function upAxisOf(model: Pick<Model, 'upAxis' | 'fileName'>): UpAxis {
  return model.upAxis ?? defaultUpAxis(model.fileName);
}
