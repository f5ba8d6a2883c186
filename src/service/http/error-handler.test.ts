// Answers are checked against their contract schema as they are written: one that does not match
// is the service's bug, answered as a 500 in the contract's error shape, never sent malformed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../contract/errors';
import { createReport } from '../store/duplicate-reports';
import { startTestService, type TestService } from '../testing/start-test-service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t?.stop());

describe('answers that do not match their schema', () => {
  it('are a 500 with the contract error, not the malformed answer', async () => {
    const user = await t.createUser({ roles: ['viewer', 'editor'] });
    const token = await t.tokenFor(user);
    const row = await createReport(t.db, {
      tenantId: user.tenantId,
      folderIds: null,
      includeSubfolders: true,
      threshold: 90,
      createdBy: user.id,
    });
    const fine = await t.api(`/v2/duplicate-reports/${row.id}`, { token });
    expect(fine.status).toBe(200);

    // A phase the contract does not know (as a newer worker might write): the answer would not match.
    await t.db.updateTable('duplicate_reports').set({ phase: 'thinking' }).where('id', '=', row.id).execute();
    const broken = await t.api(`/v2/duplicate-reports/${row.id}`, { token });
    expect(broken.status).toBe(500);
    const body = apiErrorBodySchema.parse(await broken.json());
    expect(body.error).toEqual({ message: 'Internal server error.', code: 'internal_error' });
  });

  it('a request that does not match is a 400 naming the field', async () => {
    const token = await t.editorToken();
    const response = await t.api('/v2/duplicate-reports', { method: 'POST', token, json: { threshold: 'high' } });
    expect(response.status).toBe(400);
    const { error } = apiErrorBodySchema.parse(await response.json());
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^threshold: /);
  });
});
