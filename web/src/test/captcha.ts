import type { CaptchaApi } from '../components/captcha/load-captcha';

/**
 * A stand-in for the captcha script: each widget is an "I'm not a robot" checkbox whose ticking
 * calls back with `token`. `resets` counts reset() calls per widget id.
 */
export function installFakeCaptcha(token = 'test-captcha-token') {
  const resets: number[] = [];
  const boxes: HTMLInputElement[] = [];
  const api: CaptchaApi = {
    render: (container, parameters) => {
      const id = boxes.length;
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.addEventListener('change', () => {
        if (box.checked) parameters.callback?.(token);
      });
      label.append(box, "I'm not a robot");
      container.append(label);
      boxes.push(box);
      resets[id] = 0;
      return id;
    },
    getResponse: (id = 0) => (boxes[id]?.checked ? token : ''),
    reset: (id = 0) => {
      const box = boxes[id];
      if (box) box.checked = false;
      resets[id] = (resets[id] ?? 0) + 1;
    },
  };
  window.grecaptcha = api;
  return { api, resets };
}
