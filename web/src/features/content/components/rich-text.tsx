import { Fragment, type ReactNode } from 'react';
import { AppLink } from '../../../components/ui/app-link';
import { safeHref, safeImageSrc } from '../../../lib/safe-url';
import type { InlineNode, ListBlock, RichText as RichTextValue, RichTextBlock, TextNode } from '../types';

interface RichTextProps {
  content: RichTextValue | null | undefined;
  className?: string;
}

/**
 * Renders Strapi v5 rich text: paragraphs, headings 1–6, quotes, code, ordered and unordered
 * (nested) lists, images and links, with the bold, italic, underline, strikethrough and code
 * modifiers. Unknown block types are skipped. Links with an unsafe scheme (`javascript:` and the
 * like) render as plain text.
 */
export function RichText({ content, className }: RichTextProps) {
  if (!Array.isArray(content) || content.length === 0) return null;
  return <div className={['rich-text', className].filter(Boolean).join(' ')}>{content.map(renderBlock)}</div>;
}

function renderBlock(block: RichTextBlock, index: number): ReactNode {
  switch (block.type) {
    case 'paragraph':
      return <p key={index}>{renderInline(block.children)}</p>;
    case 'heading': {
      const level = Number.isInteger(block.level) && block.level >= 1 && block.level <= 6 ? block.level : 2;
      const Heading = `h${String(level)}` as 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6';
      return <Heading key={index}>{renderInline(block.children)}</Heading>;
    }
    case 'quote':
      return <blockquote key={index}>{renderInline(block.children)}</blockquote>;
    case 'code':
      return (
        <pre key={index} className="rich-text__code">
          <code data-language={block.language ?? undefined}>{plainText(block.children)}</code>
        </pre>
      );
    case 'list':
      return renderList(block, index);
    case 'image': {
      const src = safeImageSrc(block.image.url);
      if (!src) return null;
      return (
        <figure key={index} className="rich-text__figure">
          <img
            src={src}
            alt={block.image.alternativeText ?? ''}
            width={block.image.width ?? undefined}
            height={block.image.height ?? undefined}
            loading="lazy"
          />
          {block.image.caption ? <figcaption>{block.image.caption}</figcaption> : null}
        </figure>
      );
    }
    default:
      return null;
  }
}

function renderList(block: ListBlock, key: number): ReactNode {
  const List = block.format === 'ordered' ? 'ol' : 'ul';
  return (
    <List key={key}>
      {block.children.map((child, index) =>
        child.type === 'list' ? (
          // a nested list belongs inside a list item to be valid HTML
          <li key={index} className="rich-text__nested">
            {renderList(child, index)}
          </li>
        ) : (
          <li key={index}>{renderInline(child.children)}</li>
        ),
      )}
    </List>
  );
}

function renderInline(nodes: InlineNode[] | undefined): ReactNode {
  return (nodes ?? []).map((node, index) => {
    if (node.type === 'link') {
      const children = renderInline(node.children);
      const href = safeHref(node.url);
      if (!href) return <Fragment key={index}>{children}</Fragment>;
      return (
        <AppLink key={index} to={href}>
          {children}
        </AppLink>
      );
    }
    return <Fragment key={index}>{renderText(node)}</Fragment>;
  });
}

function renderText(node: TextNode): ReactNode {
  const lines = node.text.split('\n');
  let content: ReactNode = lines.map((line, index) => (
    <Fragment key={index}>
      {index > 0 ? <br /> : null}
      {line}
    </Fragment>
  ));
  if (node.code) content = <code>{content}</code>;
  if (node.strikethrough) content = <s>{content}</s>;
  if (node.underline) content = <u>{content}</u>;
  if (node.italic) content = <em>{content}</em>;
  if (node.bold) content = <strong>{content}</strong>;
  return content;
}

function plainText(nodes: InlineNode[] | undefined): string {
  return (nodes ?? []).map((node) => (node.type === 'link' ? plainText(node.children) : node.text)).join('');
}
