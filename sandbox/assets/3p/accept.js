/*
 * Sandbox double of Authorize.net's Accept.js (the browser card tokenizer).
 *
 *   Accept.dispatchData(secureData, responseHandler)
 *     secureData = {authData: {clientKey, apiLoginID},
 *                   cardData: {cardNumber, month, year, cardCode}}
 *     responseHandler(response), where response is
 *       {opaqueData: {dataDescriptor, dataValue}, messages: {resultCode: 'Ok', message: [...]}}
 *     or {messages: {resultCode: 'Error', message: [{code, text}, ...]}}.
 *
 * Card data goes only to the sandbox that served this script (POST /3p/accept/v1/tokens), which
 * checks it and answers with a one-time payment token. responseHandler may also be the name of a
 * global function, as older Accept.js integrations pass it.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src, window.location.href).origin : "__SANDBOX_ORIGIN__";
  var endpoint = origin + '/3p/accept/v1/tokens';

  function failure(code, text) {
    return { messages: { resultCode: 'Error', message: [{ code: code, text: text }] } };
  }

  // Called outside the fetch promise chain, so an exception in the handler surfaces as an
  // ordinary error instead of being mistaken for a network failure.
  function deliver(handler, response) {
    var callback = typeof handler === 'string' ? window[handler] : handler;
    if (typeof callback !== 'function') {
      console.error('Accept.dispatchData: responseHandler is not a function');
      return;
    }
    window.setTimeout(function () { callback(response); }, 0);
  }

  function dispatchData(secureData, responseHandler) {
    var body;
    try {
      body = JSON.stringify(secureData || {});
    } catch (error) {
      deliver(responseHandler, failure('E_WC_04', 'Please provide mandatory fields.'));
      return;
    }
    window.fetch(endpoint, {
      method: 'POST',
      mode: 'cors',
      credentials: 'omit',
      headers: { 'Content-Type': 'application/json' },
      body: body
    })
      .then(function (response) { return response.json(); })
      .then(
        function (answer) { deliver(responseHandler, answer); },
        function () {
          deliver(responseHandler, failure('E_WC_19', 'An error occurred during processing. Please try again.'));
        }
      );
  }

  window.Accept = { dispatchData: dispatchData };
})();
