from onceflow.cli import main

raise SystemExit(main())
