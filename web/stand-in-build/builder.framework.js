/*
 * The stand-in 3D build's framework: the "game". It draws its title on the canvas with a 2D
 * context, proves the wasm module runs (its `add` export), and speaks the page's message bridge
 * as the real build does: it posts `registerBridge`, `checkForGuestSession` and
 * `storeGuestSession` to the page (`window.postMessage`, same origin) and receives the page's
 * messages through `SendMessage('Bridge', 'Receive', json)`, keeping them in the canvas's
 * `data-received` attribute (what the browser tests read).
 */
(function () {
  'use strict';

  window.talonforgeStandInFramework = function (module) {
    var canvas = module.canvas;
    var received = [];
    var quit = false;

    function draw() {
      var context = canvas.getContext('2d');
      if (!context) return;
      context.fillStyle = '#1f2a1f';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.fillStyle = '#f4f1ea';
      context.font = '24px sans-serif';
      context.fillText(module.data.title, 24, 48);
      context.font = '16px sans-serif';
      context.fillText('wasm add(2, 3) = ' + String(module.exports.add(2, 3)), 24, 80);
      context.fillText('messages from the page: ' + String(received.length), 24, 108);
    }

    function post(message) {
      window.postMessage(message, window.location.origin);
    }

    canvas.dataset.wasmCheck = String(module.exports.add(2, 3));
    canvas.dataset.received = '[]';
    draw();
    post({ type: 'registerBridge' });
    post({ type: 'checkForGuestSession' });
    post({ type: 'storeGuestSession', value: module.data.guestSession });

    return {
      Module: { canvas: canvas },
      SendMessage: function (gameObject, method, value) {
        if (quit) throw new Error('The build has quit');
        if (gameObject !== 'Bridge' || method !== 'Receive') return;
        received.push(JSON.parse(value));
        canvas.dataset.received = JSON.stringify(received);
        draw();
      },
      SetFullscreen: function (fullscreen) {
        if (fullscreen) void canvas.requestFullscreen();
        else if (document.fullscreenElement) void document.exitFullscreen();
      },
      Quit: function () {
        quit = true;
        return Promise.resolve();
      },
    };
  };
})();
