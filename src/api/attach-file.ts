// The file of a model that is still waiting for it (a batch left by a closed tab), or a new file
// for one that could not be read (replaceFailed, this service's addition): the record is created
// again at its path, which takes it over with a fresh upload address, then the file is sent there.
// Its own module: only the model and upload pages load it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorCodes } from '../contract/errors';
import { createModelsResponseSchema, type Model } from '../contract/models';
import { ApiError, apiClient, clientErrorCodes, errorFromResponse } from './client';
import { modelQueries } from './models';
import { withAskedPaths } from './published-answers';

export async function attachFile(
  model: Pick<Model, 'id' | 'filePath' | 'name'>,
  file: Blob,
  { replaceFailed = false }: { replaceFailed?: boolean } = {},
): Promise<void> {
  const asked = [{ filePath: model.filePath, name: model.name }];
  const created = await apiClient().request('/v2/models', {
    method: 'POST',
    query: { replaceFailed: replaceFailed ? 'true' : undefined },
    body: { models: asked },
    schema: createModelsResponseSchema,
    // A deployment of the published API does not answer paths: they are the ones asked for.
    prepare: (body) => withAskedPaths(body, asked),
  });
  const entry = created.models[0];
  if (!entry || entry.model.id !== model.id) {
    throw new ApiError(
      409,
      errorCodes.conflict,
      'This deployment made a new record instead of taking this one over: delete this model and upload the file again.',
    );
  }
  let response: Response;
  try {
    response = await fetch(entry.uploadUrl, { method: 'PUT', headers: entry.headers, body: file });
  } catch {
    throw new ApiError(0, clientErrorCodes.network, 'The file could not be sent. Check your connection and try again.');
  }
  if (!response.ok) throw await errorFromResponse(response);
}

export function useAttachFile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ model, file }: { model: Pick<Model, 'id' | 'filePath' | 'name'>; file: Blob }) => attachFile(model, file),
    onSuccess: (_data, { model }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: modelQueries.detail(model.id).queryKey }),
        queryClient.invalidateQueries({ queryKey: modelQueries.lists() }),
      ]),
  });
}
