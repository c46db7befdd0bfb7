/** Home: the hero carousel and the image ribbon the home page shows. */
export { HeroCarousel } from './components/hero-carousel';
export { ImageRibbon } from './components/image-ribbon';
