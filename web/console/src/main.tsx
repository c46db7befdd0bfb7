import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import './console.css';

const root = document.getElementById('root');
if (!root) throw new Error('the console document has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
