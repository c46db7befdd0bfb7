/*
 * Sandbox double of the reCAPTCHA v2 browser API (window.grecaptcha).
 *
 *   grecaptcha.render(container, {sitekey, callback, 'expired-callback', 'error-callback',
 *                                 theme: 'light'|'dark', size: 'normal'|'compact', tabindex})
 *       -> widgetId (0, 1, ...)
 *   grecaptcha.getResponse(widgetId?) -> token, or '' before the box is ticked
 *   grecaptcha.reset(widgetId?)
 *   grecaptcha.ready(callback)
 *
 * Script URL conventions: ?onload=functionName calls that global when the API is ready;
 * ?render=explicit leaves rendering to the page; otherwise (render=onload, the default) every
 * element with class "g-recaptcha" and a data-sitekey is rendered, reading data-callback,
 * data-expired-callback, data-error-callback, data-theme, data-size and data-tabindex.
 *
 * The widget is a real, labelled checkbox "I'm not a robot" in the page. Ticking it asks the
 * sandbox for a token (POST /3p/recaptcha/api/token {sitekey}); the token is valid for two
 * minutes and for one verification, like reCAPTCHA's. When it expires the box unticks and
 * 'expired-callback' runs. The widget also keeps a hidden textarea named g-recaptcha-response,
 * so plain form posts carry the token as with the real widget.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var scriptUrl = script && script.src ? new URL(script.src, window.location.href) : null;
  var origin = scriptUrl ? scriptUrl.origin : "__SANDBOX_ORIGIN__";
  var options = scriptUrl ? scriptUrl.searchParams : new URLSearchParams();
  var tokenEndpoint = origin + '/3p/recaptcha/api/token';
  var widgets = [];

  function resolveCallback(value) {
    if (typeof value === 'function') return value;
    if (typeof value === 'string' && typeof window[value] === 'function') return window[value];
    return null;
  }

  function call(callback, argument) {
    if (!callback) return;
    try {
      callback(argument);
    } catch (error) {
      window.setTimeout(function () { throw error; }, 0);
    }
  }

  function styleBox(box, dark, compact) {
    var s = box.style;
    s.boxSizing = 'border-box';
    s.display = 'inline-flex';
    s.flexDirection = compact ? 'column' : 'row';
    s.alignItems = compact ? 'flex-start' : 'center';
    s.justifyContent = 'space-between';
    s.gap = '12px';
    s.width = compact ? '164px' : '304px';
    s.minHeight = compact ? '144px' : '78px';
    s.padding = '12px';
    s.border = '1px solid ' + (dark ? '#555' : '#d3d3d3');
    s.borderRadius = '3px';
    s.background = dark ? '#222' : '#f9f9f9';
    s.color = dark ? '#fff' : '#000';
    s.fontFamily = 'Roboto, Helvetica, Arial, sans-serif';
    s.fontSize = '14px';
    s.boxShadow = '0 0 4px 1px rgba(0, 0, 0, 0.08)';
  }

  function findWidget(widgetId) {
    if (widgets.length === 0) throw new Error('No reCAPTCHA clients exist.');
    var id = widgetId === undefined || widgetId === null ? 0 : widgetId;
    var widget = widgets[id];
    if (!widget) throw new Error('Invalid reCAPTCHA client id: ' + widgetId);
    return widget;
  }

  function setStatus(widget, text, isError) {
    widget.status.textContent = text;
    widget.status.setAttribute('role', isError ? 'alert' : 'status');
    widget.status.style.color = isError ? '#d93025' : 'inherit';
  }

  function setResponse(widget, token) {
    widget.response = token;
    widget.textarea.value = token;
    widget.checkbox.checked = token !== '';
  }

  function clear(widget) {
    window.clearTimeout(widget.expiryTimer);
    widget.expiryTimer = null;
    widget.generation += 1; // a token request still in flight is ignored when it lands
    widget.busy = false;
    widget.box.removeAttribute('aria-busy');
    setResponse(widget, '');
  }

  function expire(widget) {
    clear(widget);
    setStatus(widget, 'Verification expired. Check the checkbox again.', false);
    call(widget.expiredCallback);
  }

  function requestToken(widget) {
    var generation = widget.generation;
    widget.busy = true;
    widget.box.setAttribute('aria-busy', 'true');
    setStatus(widget, 'Verifying\u2026', false);
    window.fetch(tokenEndpoint, {
      method: 'POST',
      mode: 'cors',
      credentials: 'omit',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sitekey: widget.sitekey })
    })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(
        function (answer) {
          if (generation !== widget.generation) return;
          widget.busy = false;
          widget.box.removeAttribute('aria-busy');
          if (!answer.ok || !answer.body || typeof answer.body.token !== 'string') {
            var message = answer.body && answer.body.message ? answer.body.message : 'Verification failed';
            setResponse(widget, '');
            setStatus(widget, 'ERROR for site owner: ' + message, true);
            call(widget.errorCallback);
            return;
          }
          setResponse(widget, answer.body.token);
          setStatus(widget, 'You are verified', false);
          var ttlSeconds = Number(answer.body.expiresIn) || 120;
          widget.expiryTimer = window.setTimeout(function () { expire(widget); }, ttlSeconds * 1000);
          call(widget.callback, answer.body.token);
        },
        function () {
          if (generation !== widget.generation) return;
          widget.busy = false;
          widget.box.removeAttribute('aria-busy');
          setResponse(widget, '');
          setStatus(widget, 'Could not connect to the reCAPTCHA service. Please check your internet connection and try again.', true);
          call(widget.errorCallback);
        }
      );
  }

  function resolveContainer(container) {
    var element = typeof container === 'string' ? document.getElementById(container) : container;
    if (!element || element.nodeType !== 1) {
      throw new Error('reCAPTCHA placeholder element must be an element or id');
    }
    return element;
  }

  function render(container, parameters) {
    var element = resolveContainer(container);
    if (element.hasAttribute('data-sandbox-recaptcha-id')) {
      throw new Error('reCAPTCHA has already been rendered in this element');
    }
    var params = parameters || {};
    var data = element.dataset || {};
    var sitekey = params.sitekey || data.sitekey;
    if (!sitekey) throw new Error('Missing required parameters: sitekey');
    var id = widgets.length;
    var dark = (params.theme || data.theme) === 'dark';
    var compact = (params.size || data.size) === 'compact';
    var prefix = 'sandbox-recaptcha-' + id;

    var box = document.createElement('div');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'reCAPTCHA');
    box.className = 'sandbox-recaptcha';
    styleBox(box, dark, compact);

    var left = document.createElement('div');
    left.style.display = 'flex';
    left.style.flexDirection = 'column';
    left.style.gap = '4px';

    var row = document.createElement('div');
    row.style.display = 'flex';
    row.style.alignItems = 'center';
    row.style.gap = '10px';

    var checkbox = document.createElement('input');
    checkbox.type = 'checkbox';
    checkbox.id = prefix + '-checkbox';
    checkbox.style.width = '24px';
    checkbox.style.height = '24px';
    checkbox.style.margin = '0';
    checkbox.style.cursor = 'pointer';
    var tabindex = params.tabindex !== undefined ? params.tabindex : data.tabindex;
    if (tabindex !== undefined) checkbox.tabIndex = Number(tabindex);

    var label = document.createElement('label');
    label.htmlFor = checkbox.id;
    label.textContent = "I'm not a robot";
    label.style.cursor = 'pointer';

    var status = document.createElement('span');
    status.id = prefix + '-status';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    status.style.fontSize = '12px';
    status.style.minHeight = '1em';
    checkbox.setAttribute('aria-describedby', status.id);

    var brand = document.createElement('span');
    brand.textContent = 'Sandbox captcha';
    brand.style.fontSize = '10px';
    brand.style.color = dark ? '#bbb' : '#555';

    var textarea = document.createElement('textarea');
    textarea.name = 'g-recaptcha-response';
    textarea.id = id === 0 ? 'g-recaptcha-response' : 'g-recaptcha-response-' + id;
    textarea.hidden = true;
    textarea.setAttribute('aria-hidden', 'true');
    textarea.tabIndex = -1;

    row.appendChild(checkbox);
    row.appendChild(label);
    left.appendChild(row);
    left.appendChild(status);
    box.appendChild(left);
    box.appendChild(brand);
    box.appendChild(textarea);
    element.appendChild(box);
    element.setAttribute('data-sandbox-recaptcha-id', String(id));

    var widget = {
      id: id,
      sitekey: sitekey,
      callback: resolveCallback(params.callback || data.callback),
      expiredCallback: resolveCallback(params['expired-callback'] || data.expiredCallback),
      errorCallback: resolveCallback(params['error-callback'] || data.errorCallback),
      box: box,
      checkbox: checkbox,
      status: status,
      textarea: textarea,
      response: '',
      busy: false,
      expiryTimer: null,
      generation: 0
    };

    checkbox.addEventListener('change', function () {
      if (widget.response !== '') {
        // Verified: like the real widget, ticking again does not untick it.
        checkbox.checked = true;
        return;
      }
      if (widget.busy) {
        checkbox.checked = true;
        return;
      }
      if (checkbox.checked) requestToken(widget);
    });

    widgets.push(widget);
    return id;
  }

  function getResponse(widgetId) {
    return findWidget(widgetId).response;
  }

  function reset(widgetId) {
    var widget = findWidget(widgetId);
    clear(widget);
    setStatus(widget, '', false);
  }

  function execute() {
    // Invisible reCAPTCHA is not doubled: the checkbox is the challenge.
    return Promise.resolve();
  }

  var readyQueue = [];
  var isReady = false;

  function ready(callback) {
    if (typeof callback !== 'function') return;
    if (isReady) {
      window.setTimeout(callback, 0);
    } else {
      readyQueue.push(callback);
    }
  }

  window.grecaptcha = {
    render: render,
    getResponse: getResponse,
    reset: reset,
    ready: ready,
    execute: execute
  };

  function renderMarkedElements() {
    var elements = document.querySelectorAll('.g-recaptcha[data-sitekey]');
    for (var i = 0; i < elements.length; i += 1) {
      if (!elements[i].hasAttribute('data-sandbox-recaptcha-id')) render(elements[i]);
    }
  }

  function start() {
    if (options.get('render') !== 'explicit') renderMarkedElements();
    isReady = true;
    var queued = readyQueue.splice(0);
    // Functions queued the way Google's loader snippet queues them.
    var config = window.___grecaptcha_cfg;
    if (config && Array.isArray(config.fns)) queued = queued.concat(config.fns.splice(0));
    queued.forEach(function (callback) { call(callback); });
    var onload = options.get('onload');
    if (onload) call(resolveCallback(onload));
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
