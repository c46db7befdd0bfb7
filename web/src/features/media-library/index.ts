/** Media library: the product image request form and the fetched downloads' object URLs. */
export { ImageRequestForm } from './image-request-form';
export { useObjectUrls } from './use-object-urls';
