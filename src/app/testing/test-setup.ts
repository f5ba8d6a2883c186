import { configure } from '@testing-library/react';

// Routes load their pages lazily; on a busy 2-core machine that alone can pass Testing Library's 1 s default.
configure({ asyncUtilTimeout: 5000 });
