/** What makes a photo search well (the published API's advice for image search), shown beside the drop zone. */
export const imageGuidance = [
  { title: 'One object', text: 'The object is alone in the image.' },
  { title: 'Plain background', text: 'The background is plain.' },
  { title: 'Any colour', text: "The object's colour does not usually affect the results." },
  { title: 'Avoid clutter', text: 'Images with several objects or a cluttered, busy background perform poorly.' },
] as const;

export function ImageGuidance({ id }: { id?: string }) {
  return (
    <aside className="image-guidance" aria-labelledby="image-guidance-title">
      <h3 id="image-guidance-title" className="image-guidance__title">
        For the best results
      </h3>
      <ol id={id} className="image-guidance__list">
        {imageGuidance.map((rule, i) => (
          <li key={rule.title} className={`image-guidance__item${i === 3 ? ' image-guidance__item--warn' : ''}`}>
            <strong>{rule.title}.</strong> {rule.text}
          </li>
        ))}
      </ol>
      <p className="muted image-guidance__tip">Several photos of the same part from different sides make the search more certain.</p>
    </aside>
  );
}
