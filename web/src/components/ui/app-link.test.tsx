import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppLink } from './app-link';

/** jsdom cannot load a document: a click the router left alone stops here. */
function stopDocumentNavigation(event: MouseEvent): void {
  event.preventDefault();
}

function clickLinkTo(to: string): void {
  render(
    <MemoryRouter initialEntries={['/']}>
      <Routes>
        <Route path="/" element={<AppLink to={to}>Go</AppLink>} />
        <Route path="*" element={<p>navigated in the app</p>} />
      </Routes>
    </MemoryRouter>,
  );
  fireEvent.click(screen.getByRole('link', { name: 'Go' }));
}

describe('AppLink', () => {
  beforeEach(() => document.addEventListener('click', stopDocumentNavigation));
  afterEach(() => document.removeEventListener('click', stopDocumentNavigation));

  it('navigates in the app to an in-app path', () => {
    clickLinkTo('/about-us');
    expect(screen.getByText('navigated in the app')).toBeInTheDocument();
  });

  // Issue 46, finding 5: only the builder's document may compile WebAssembly, and a CSP belongs
  // to the document, so a link there loads a new one.
  it('loads a new document for the 3D builder', () => {
    clickLinkTo('/3dbuilder');
    expect(screen.queryByText('navigated in the app')).toBeNull();
    expect(screen.getByRole('link', { name: 'Go' })).toHaveAttribute('href', '/3dbuilder');
  });
});
