/*
 * The stand-in 3D build's loader: the same entry point as a Unity WebGL loader,
 * `createUnityInstance(canvas, config, onProgress)`, resolving to an instance with `SendMessage`,
 * `SetFullscreen` and `Quit`. It loads the framework script, fetches the data file and the wasm
 * module (brotli-compressed files the server sends with `Content-Encoding: br`), instantiates
 * the wasm and starts the framework on the canvas. No WebGL: it draws with a 2D context, so it
 * runs where there is no GPU (headless test browsers). Progress goes 0 → 1 as the files arrive.
 */
(function () {
  'use strict';

  function loadScript(url) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = url;
      script.async = true;
      script.onload = function () {
        resolve();
      };
      script.onerror = function () {
        reject(new Error('Could not load ' + url));
      };
      document.head.appendChild(script);
    });
  }

  function fetchBytes(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error('Could not load ' + url + ' (' + response.status + ')');
      return response.arrayBuffer();
    });
  }

  window.createUnityInstance = function (canvas, config, onProgress) {
    var report = typeof onProgress === 'function' ? onProgress : function () {};
    report(0);
    return loadScript(config.frameworkUrl)
      .then(function () {
        report(0.25);
        return fetchBytes(config.dataUrl);
      })
      .then(function (data) {
        report(0.5);
        return fetchBytes(config.codeUrl).then(function (code) {
          report(0.75);
          return WebAssembly.instantiate(code).then(function (wasm) {
            return { data: data, exports: wasm.instance.exports };
          });
        });
      })
      .then(function (loaded) {
        var start = window.talonforgeStandInFramework;
        if (typeof start !== 'function') throw new Error('The framework did not load');
        var instance = start({
          canvas: canvas,
          data: JSON.parse(new TextDecoder().decode(loaded.data)),
          exports: loaded.exports,
          productName: config.productName,
        });
        report(1);
        return instance;
      });
  };
})();
