import { apiSend } from '../../lib/api';

export interface ImageRequest {
  firstName: string;
  lastName: string;
  email: string;
  lookingFor: string;
  captcha: string;
}

export function requestImages(request: ImageRequest): Promise<{ message: string }> {
  return apiSend('POST', '/api/image-requests', request);
}
