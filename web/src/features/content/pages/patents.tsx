import { PageMeta } from '../components/page-meta';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';

export const patentsLoader = pageLoader('patent');

export function PatentsPage() {
  const page = useContentPage('patent');
  const title = page.title || 'Patents';
  return (
    <div className="page page--patents">
      <PageMeta metaData={page.metaData} />
      <h1>{title}</h1>
      {page.items.length > 0 ? (
        <table className="patents">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Patent Type</th>
              <th scope="col">Colors and Models</th>
              <th scope="col">Patent Numbers</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => (
              <tr key={item.id}>
                <th scope="row">{item.productName}</th>
                <td>{item.patentType}</td>
                <td>{item.colorsAndModels}</td>
                <td>
                  {item.patentNumbers.length > 0 ? (
                    <ul className="patents__numbers">
                      {item.patentNumbers.map((number) => (
                        <li key={number}>{number}</li>
                      ))}
                    </ul>
                  ) : (
                    'Patent pending'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
