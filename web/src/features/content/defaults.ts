import type { ContentPages, PageName } from './types';

const emptyImage = { src: '', alt: '' };

/** What a page shows when the content service fails: empty, silently (spec). */
export const emptyPages: { readonly [N in PageName]: ContentPages[N] } = {
  app: { logo: emptyImage, menus: [] },
  footer: {
    logo: emptyImage,
    navLinks: [],
    socialLinks: [],
    bottomTexts: [],
    downloadAsset: { label: '', url: '' },
  },
  home: { carousel: [], ribbon: [] },
};
