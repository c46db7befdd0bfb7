import type { ImageRequest, MessageAnswer } from '../../api/types';
import { apiSend } from '../../lib/api';

export function requestImages(request: ImageRequest): Promise<MessageAnswer> {
  return apiSend('POST', '/api/image-requests', request);
}
