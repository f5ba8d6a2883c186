// Duplicate review (this product's addition; README, "Duplicate clean-up"): a report of duplicate
// groups over a scope, run in the background and kept; decisions on its pairs, recorded per
// tenant; their export; and bulk actions on the duplicates decided.
import { z } from 'zod';
import { duplicateClusterSchema, relationLinkSchema } from './matches';
import { defaultThresholds } from './score-scale';
import { modelSchema } from './models';
import { pageDataSchema } from './paging';

export const reportStatuses = ['queued', 'running', 'ready', 'failed'] as const;
export type ReportStatus = (typeof reportStatuses)[number];

/** What a running report is doing: reading the scope's vectors, linking near pairs, comparing the pairs not yet compared exactly, grouping. */
export const reportPhases = ['waiting', 'reading', 'linking', 'comparing', 'grouping', 'done'] as const;

/** Threshold of a report unless one is given: the duplicate rule's ≥ 98. */
export const defaultReportThreshold = defaultThresholds.duplicates;
/** The lowest threshold a report takes: below it nearly every pair of a large scope links. */
export const minReportThreshold = 80;

export const duplicateReportRequestSchema = z
  .object({
    /** Folders to look in; none (or absent) for every model of the tenant. */
    folderIds: z.array(z.number().int().positive().max(2_147_483_647)).max(500).optional(),
    includeSubfolders: z.boolean().default(true),
    threshold: z.number().min(minReportThreshold).max(100).default(defaultReportThreshold),
  })
  .strict();
export type DuplicateReportRequest = z.input<typeof duplicateReportRequestSchema>;

export const userRefSchema = z.object({ id: z.string(), name: z.string() });

export const duplicateReportSchema = z.object({
  id: z.string(),
  status: z.enum(reportStatuses),
  progress: z.object({ phase: z.enum(reportPhases), done: z.number().int().nonnegative(), total: z.number().int().nonnegative() }),
  threshold: z.number(),
  scope: z.object({
    /** null: the whole tenant. */
    folders: z.array(z.object({ id: z.number().int(), path: z.string() })).nullable(),
    includeSubfolders: z.boolean(),
  }),
  /** Models compared, once ready. */
  modelCount: z.number().int().nonnegative().nullable(),
  /** Groups of two or more still proposed (decisions "not a duplicate" applied), once ready; in lists of reports, null. */
  groupCount: z.number().int().nonnegative().nullable(),
  /** Models of the scope changed (added, removed, moved, processed again) since the report read them. */
  stale: z.boolean(),
  error: z.string().nullable(),
  createdBy: userRefSchema,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type DuplicateReport = z.infer<typeof duplicateReportSchema>;

export const duplicateReportResponseSchema = z.object({ report: duplicateReportSchema });
export const duplicateReportListResponseSchema = z.object({ reports: z.array(duplicateReportSchema), pageData: pageDataSchema });

export const duplicateVerdicts = ['duplicate', 'not-duplicate'] as const;
export type DuplicateVerdict = (typeof duplicateVerdicts)[number];

export const duplicateDecisionSchema = z.object({
  id: z.number().int(),
  masterId: z.string(),
  /** The other model of the pair: the duplicate, or the model that is not one. */
  modelId: z.string(),
  verdict: z.enum(duplicateVerdicts),
  /** The report threshold it was decided at: a pair decided "not a duplicate" is not proposed again at this threshold or above. */
  threshold: z.number(),
  /** The pair's part-to-part score when decided. */
  matchPercentage: z.number().nullable(),
  /** Paths when decided (the record outlives a deleted duplicate). */
  masterPath: z.string(),
  modelPath: z.string(),
  note: z.string().nullable(),
  decidedBy: userRefSchema,
  decidedAt: z.string(),
});
export type DuplicateDecision = z.infer<typeof duplicateDecisionSchema>;

export const duplicateDecisionRequestSchema = z
  .object({
    masterId: z.string().uuid(),
    modelId: z.string().uuid(),
    verdict: z.enum(duplicateVerdicts),
    threshold: z.number().min(0).max(100).default(defaultReportThreshold),
    note: z.string().trim().max(2000).optional(),
  })
  .strict()
  .refine((d) => d.masterId !== d.modelId, { message: 'a model is not its own duplicate', path: ['modelId'] });
export type DuplicateDecisionRequest = z.input<typeof duplicateDecisionRequestSchema>;

export const duplicateDecisionResponseSchema = z.object({ decision: duplicateDecisionSchema });
export const duplicateDecisionListResponseSchema = z.object({ decisions: z.array(duplicateDecisionSchema), pageData: pageDataSchema });

/** A model of a group as the review shows it. */
export const reviewMemberSchema = z.object({
  model: modelSchema,
  /**
   * Assemblies that use it: by `reference` (their trees place it, or they name its file: deleting
   * it makes them incomplete) or by `shape` (part-in-part finds it in them).
   */
  usedIn: z.array(z.object({ id: z.string(), name: z.string(), filePath: z.string(), by: z.enum(['reference', 'shape']) })),
  /** The decision on this member against the group's master, if one was made. */
  decision: duplicateDecisionSchema.optional(),
});
export type ReviewMember = z.infer<typeof reviewMemberSchema>;

export const reviewGroupSchema = z.object({
  /** The member ids joined by commas, sorted: stable across pages while decisions do not split the group. */
  key: z.string(),
  members: z.array(reviewMemberSchema).min(2),
  links: duplicateClusterSchema.shape.links,
  /** The CAD original over an exchange file over a mesh export, then the member used in most assemblies, then the oldest. */
  suggestedMasterId: z.string(),
  /** Why that one, in words the review shows ("used in the most assemblies (3)"). */
  suggestedMasterReason: z.string(),
  /** The master decisions name, else the suggested one. */
  masterId: z.string(),
  /** Mirror images and scaled copies of members: shown beside the group, never in it. */
  relations: z.array(relationLinkSchema),
  relatedModels: z.array(modelSchema),
});
export type ReviewGroup = z.infer<typeof reviewGroupSchema>;

/** A member of any of the report's groups decided a duplicate of its group's master: what a bulk action acts on. */
export const decidedDuplicateSchema = z.object({
  model: modelSchema,
  master: modelSchema,
  usedIn: reviewMemberSchema.shape.usedIn,
});
export type DecidedDuplicate = z.infer<typeof decidedDuplicateSchema>;

export const reportGroupsResponseSchema = z.object({
  report: duplicateReportSchema,
  groups: z.array(reviewGroupSchema),
  pageData: pageDataSchema,
  /** Across every group of the report, not only this page; those acted on from it left out. */
  decidedDuplicates: z.array(decidedDuplicateSchema),
  /** Decided duplicates already moved (and still there), tagged or deleted from this report. */
  actedCount: z.number().int().nonnegative(),
});
export type ReportGroupsResponse = z.infer<typeof reportGroupsResponseSchema>;

/** Most models one bulk action takes: a larger selection is sent as several requests. */
export const maxModelsPerAction = 100;

const actionModels = z.array(z.string().uuid()).min(1).max(maxModelsPerAction);
/**
 * The report the action is taken from, if any: the duplicates acted on leave its list of decided
 * duplicates, and its own action does not mark it out of date.
 */
const fromReport = z.string().uuid().optional();
export const duplicateActionRequestSchema = z.discriminatedUnion('action', [
  z
    .object({
      action: z.literal('move'),
      modelIds: actionModels,
      folderId: z.number().int().positive().max(2_147_483_647),
      reportId: fromReport,
    })
    .strict(),
  z
    .object({
      action: z.literal('set-metadata'),
      modelIds: actionModels,
      reportId: fromReport,
      metadataKeyId: z.number().int().positive().max(2_147_483_647),
      /** The value to set; absent: each duplicate's master's path. */
      value: z.string().max(10_000).optional(),
    })
    .strict(),
  z
    .object({
      action: z.literal('delete'),
      modelIds: actionModels,
      reportId: fromReport,
      /** Assemblies that use a duplicate, confirmed by the user by name: without every one, nothing is deleted (409). */
      confirmedAssemblyIds: z.array(z.string().uuid()).max(1000).default([]),
    })
    .strict(),
]);
export type DuplicateActionRequest = z.input<typeof duplicateActionRequestSchema>;

export const duplicateActionResponseSchema = z.object({
  action: z.enum(['move', 'set-metadata', 'delete']),
  modelIds: z.array(z.string()),
});

/** The published API's match feedback (MatchFeedbackRequestBody): ExactMatch records "duplicate", FamilyMatch "not a duplicate" (same family, another part). */
export const matchFeedbackTypes = ['ExactMatch', 'FamilyMatch'] as const;
export const matchFeedbackRequestSchema = z
  .object({ feedback: z.string().max(2000), feedbackType: z.enum(matchFeedbackTypes).optional() })
  .strict();
export const matchFeedbackSchema = z.object({
  modelId: z.string(),
  matchedModelId: z.string(),
  feedbackType: z.enum(matchFeedbackTypes),
  feedback: z.string(),
  decision: duplicateDecisionSchema,
});
export const matchFeedbackListResponseSchema = z.object({ feedback: z.array(matchFeedbackSchema) });
