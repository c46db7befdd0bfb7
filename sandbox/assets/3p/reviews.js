/*
 * Sandbox double of a third-party reviews widget.
 *
 * Renders static demo reviews into every element carrying data-reviews-widget:
 *   <div data-reviews-widget="summary" data-product-id="SKU-OR-TITLE"></div>  star rating + count
 *   <div data-reviews-widget="list" data-product-id="..."></div>             reviews of a product
 *   <div data-reviews-widget="list"></div>                                   site-wide reviews
 * and exposes window.SandboxReviews.refresh(), which (re-)renders them all: call it after the
 * page has put new widget elements in place. Rendering runs once by itself when the script loads.
 *
 * The list widget ends with a "Write a review" form whose reviewer fields (name and e-mail) are
 * marked data-reviews-user-field, so a page that must not show them can remove them.
 */
(function () {
  'use strict';

  var REVIEWS = [
    { author: 'Sam R.', rating: 5, title: 'Exactly as described', body: 'Fit and finish are excellent. Shipped fast and arrived well packed.' },
    { author: 'Jordan T.', rating: 4, title: 'Solid value', body: 'Does what it should. Instructions could be clearer, but support answered quickly.' },
    { author: 'Alex M.', rating: 5, title: 'Would buy again', body: 'Second one I have bought. Consistent quality every time.' },
    { author: 'Casey L.', rating: 3, title: 'Good, not perfect', body: 'Works well once set up; setup took longer than expected.' },
    { author: 'Morgan P.', rating: 5, title: 'Great customer service', body: 'Had a question about compatibility and got a clear answer the same day.' },
    { author: 'Riley K.', rating: 4, title: 'Well made', body: 'Machining is clean and the parts feel durable.' }
  ];

  function hash(text) {
    var value = 7;
    for (var i = 0; i < text.length; i += 1) value = (value * 31 + text.charCodeAt(i)) >>> 0;
    return value;
  }

  // Three reviews per product, chosen by its id so each product reads a little differently.
  function reviewsFor(productId) {
    if (!productId) return REVIEWS.slice();
    var start = hash(productId) % REVIEWS.length;
    return [0, 1, 2].map(function (offset) { return REVIEWS[(start + offset) % REVIEWS.length]; });
  }

  function el(tag, text) {
    var element = document.createElement(tag);
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function stars(rating) {
    var span = el('span', '\u2605\u2605\u2605\u2605\u2605'.slice(0, rating) + '\u2606\u2606\u2606\u2606\u2606'.slice(0, 5 - rating));
    span.setAttribute('role', 'img');
    span.setAttribute('aria-label', 'Rated ' + rating + ' out of 5');
    span.style.color = '#b7791f';
    span.style.letterSpacing = '2px';
    return span;
  }

  function average(reviews) {
    var total = reviews.reduce(function (sum, review) { return sum + review.rating; }, 0);
    return Math.round((total / reviews.length) * 10) / 10;
  }

  function renderSummary(container, reviews) {
    var wrapper = el('div');
    wrapper.className = 'sandbox-reviews-summary';
    wrapper.appendChild(stars(Math.round(average(reviews))));
    wrapper.appendChild(el('span', ' ' + average(reviews) + ' (' + reviews.length + ' reviews)'));
    container.appendChild(wrapper);
  }

  function field(form, labelText, type, name, isUserField) {
    var id = 'sandbox-reviews-' + name + '-' + Math.random().toString(36).slice(2, 8);
    var wrapper = el('div');
    wrapper.style.margin = '0.5rem 0';
    if (isUserField) wrapper.setAttribute('data-reviews-user-field', name);
    var label = el('label', labelText);
    label.htmlFor = id;
    label.style.display = 'block';
    var input = el(type === 'textarea' ? 'textarea' : 'input');
    if (type !== 'textarea') input.type = type;
    input.id = id;
    input.name = name;
    input.required = true;
    wrapper.appendChild(label);
    wrapper.appendChild(input);
    form.appendChild(wrapper);
  }

  function renderWriteForm(section) {
    var toggle = el('button', 'Write a review');
    toggle.type = 'button';
    toggle.setAttribute('aria-expanded', 'false');
    var form = el('form');
    form.hidden = true;
    form.setAttribute('aria-label', 'Write a review');
    field(form, 'Your name', 'text', 'name', true);
    field(form, 'Your e-mail', 'email', 'email', true);
    field(form, 'Review title', 'text', 'title', false);
    field(form, 'Review', 'textarea', 'body', false);
    var submit = el('button', 'Submit review');
    submit.type = 'submit';
    form.appendChild(submit);
    var notice = el('p');
    notice.setAttribute('role', 'status');
    toggle.addEventListener('click', function () {
      form.hidden = !form.hidden;
      toggle.setAttribute('aria-expanded', String(!form.hidden));
    });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      form.reset();
      form.hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
      notice.textContent = 'Thank you! Your review will appear after moderation.';
    });
    section.appendChild(toggle);
    section.appendChild(form);
    section.appendChild(notice);
  }

  function renderList(container, reviews) {
    var section = el('section');
    section.className = 'sandbox-reviews-list';
    section.setAttribute('aria-label', 'Customer reviews');
    var header = el('p');
    header.appendChild(stars(Math.round(average(reviews))));
    header.appendChild(el('span', ' ' + average(reviews) + ' out of 5, based on ' + reviews.length + ' reviews'));
    section.appendChild(header);
    var list = el('ul');
    list.style.listStyle = 'none';
    list.style.padding = '0';
    reviews.forEach(function (review) {
      var item = el('li');
      item.style.borderTop = '1px solid #ddd';
      item.style.padding = '0.75rem 0';
      item.appendChild(stars(review.rating));
      var title = el('strong', ' ' + review.title);
      item.appendChild(title);
      item.appendChild(el('p', review.body));
      var by = el('p', '\u2014 ' + review.author + ', verified buyer');
      by.style.fontSize = '0.875em';
      by.style.color = '#555';
      item.appendChild(by);
      list.appendChild(item);
    });
    section.appendChild(list);
    renderWriteForm(section);
    container.appendChild(section);
  }

  function refresh() {
    var containers = document.querySelectorAll('[data-reviews-widget]');
    for (var i = 0; i < containers.length; i += 1) {
      var container = containers[i];
      var kind = container.getAttribute('data-reviews-widget');
      var reviews = reviewsFor(container.getAttribute('data-product-id') || '');
      container.replaceChildren();
      if (kind === 'summary') {
        renderSummary(container, reviews);
      } else {
        renderList(container, reviews);
      }
      container.setAttribute('data-reviews-rendered', 'true');
    }
  }

  window.SandboxReviews = { refresh: refresh };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', refresh);
  } else {
    refresh();
  }
})();
