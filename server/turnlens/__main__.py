from turnlens.cli import main

raise SystemExit(main())
