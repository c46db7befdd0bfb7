export { WarrantyPage as Component, warrantyLoader as loader } from '../../features/content/pages/warranty';
