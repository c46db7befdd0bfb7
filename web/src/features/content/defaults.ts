import type { AuthContentPage, ContentPages, CopyPage, PageName } from './types';

const emptyImage = { src: '', alt: '' };
const emptyAuthPage: AuthContentPage = { backgroundImage: emptyImage, header: '' };
const emptyCopyPage: CopyPage = { backgroundImage: emptyImage, heading: '', text: '', richText: [] };

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
  aboutus: {
    headingTitle: '',
    headingImageUrl: emptyImage,
    headingVideoUrl: null,
    simpleCopySection: [],
    lookingForImageUrl: emptyImage,
    lookingForHeading: '',
    lookingForSubHeading: [],
    lookingForListContent: [],
    wantToTalkImageUrl: emptyImage,
    wantToTalkHeading: '',
    wantToTalkContent: '',
  },
  contactus: {
    heading: '',
    imgUrl: emptyImage,
    address1: '',
    address2: '',
    address3: '',
    phone: '',
    email: '',
    hours: '',
    socialLinks: [],
  },
  dealerlocator: { heading: '', dealerSignup: '', dealerSignupLink: { label: '', url: '' } },
  dealerregistration: { title: '', greeting: '', subText: [] },
  faq: { breadcrumbs: [], headerImage: emptyImage, title: '', intro: [], items: [] },
  limitededition: { bannerTitle: '', current: null, past: [] },
  medialibrary: { heading: '', catalog: null, downloads: [], imageRequest: { heading: '', text: '' } },
  warranty: { breadcrumbs: [], title: '', sections: [] },
  resources: { heading: '', subheading: '', content: [] },
  support: { heading: '', subheading: '', cards: [] },
  patent: { title: '', items: [] },
  login: emptyAuthPage,
  register: emptyAuthPage,
  forgotpassword: emptyAuthPage,
  resetpassword: emptyAuthPage,
  terms: emptyCopyPage,
  privacy: emptyCopyPage,
};
