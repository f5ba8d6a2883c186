import type { Migration, MigrationProvider } from 'kysely/migration';
import { initial } from './0001-initial';
import { models } from './0002-models';
import { search } from './0003-search';
import { images } from './0004-images';
import { searchPairs } from './0005-search-pairs';
import { throttle } from './0006-throttle';
import { modelOwner } from './0007-model-owner';
import { imagePreview } from './0008-image-preview';
import { pairRelations } from './0009-pair-relations';
import { queueWorkers } from './0010-queue-workers';
import { externalIdentities } from './0011-external-identities';
import { modelsUpdated } from './0012-models-updated';
import { declaredUnits } from './0013-declared-units';
import { duplicateReview } from './0014-duplicate-review';
import { upAxis } from './0015-up-axis';
import { reportActions } from './0016-report-actions';
import { webhooks } from './0017-webhooks';
import { viewSignatures } from './0018-view-signatures';

/** All migrations, in order. Names sort lexically, which is the order Kysely applies them in. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-models': models,
  '0003-search': search,
  '0004-images': images,
  '0005-search-pairs': searchPairs,
  '0006-throttle': throttle,
  '0007-model-owner': modelOwner,
  '0008-image-preview': imagePreview,
  '0009-pair-relations': pairRelations,
  '0010-queue-workers': queueWorkers,
  '0011-external-identities': externalIdentities,
  '0012-models-updated': modelsUpdated,
  '0013-declared-units': declaredUnits,
  '0014-duplicate-review': duplicateReview,
  '0015-up-axis': upAxis,
  '0016-report-actions': reportActions,
  '0017-webhooks': webhooks,
  '0018-view-signatures': viewSignatures,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
