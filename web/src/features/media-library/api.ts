import type { ImageRequest, MessageAnswer } from '../../api/types';
import { api, unwrap } from '../../lib/api';

export function requestImages(request: ImageRequest): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/image-requests', { body: request }));
}
