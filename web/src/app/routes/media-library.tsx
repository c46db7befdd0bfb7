export {
  MediaLibraryPage as Component,
  mediaLibraryLoader as loader,
} from '../../features/media-library/pages/media-library';
