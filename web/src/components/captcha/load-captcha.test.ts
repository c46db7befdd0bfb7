import { describe, expect, it } from 'vitest';
import { installFakeCaptcha } from '../../test/captcha';
import { loadCaptcha } from './load-captcha';

describe('loadCaptcha', () => {
  it('adds the script once, in explicit-render mode with an onload callback, and resolves with the API', async () => {
    const first = loadCaptcha('https://captcha.example.test/api.js?hl=en');
    const second = loadCaptcha('https://captcha.example.test/api.js?hl=en');

    const scripts = document.head.querySelectorAll<HTMLScriptElement>('script[src^="https://captcha.example.test/"]');
    expect(scripts).toHaveLength(1);
    const url = new URL(scripts[0]?.src ?? '');
    expect(url.searchParams.get('hl')).toBe('en');
    expect(url.searchParams.get('render')).toBe('explicit');
    const onload = url.searchParams.get('onload') ?? '';
    expect(onload).not.toBe('');

    // the script arrives and calls back
    const { api } = installFakeCaptcha();
    (window as unknown as Record<string, () => void>)[onload]?.();

    await expect(first).resolves.toBe(api);
    await expect(second).resolves.toBe(api);
    // once loaded, no further script
    await expect(loadCaptcha('https://captcha.example.test/api.js?hl=en')).resolves.toBe(api);
    expect(document.head.querySelectorAll('script[src^="https://captcha.example.test/"]')).toHaveLength(1);
  });
});
